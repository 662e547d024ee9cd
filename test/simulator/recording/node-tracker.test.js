import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createNodeTracker } from '../../../simulator/recording/node-tracker.js'
import { createRecorder } from '../../../simulator/recording/recorder.js'
import { parseNodeFrom } from '../../../lib/input/node-from.js'
import { expectRefusals } from '../../helpers/cli.js'
import { cookieValue, storeCookies } from '../../../simulator/sessions/cookie-jar.js'

const from = /** @type {import('../../../lib/input/node-from.js').NodeFrom} */ (parseNodeFrom('event:node', '--node-from'))

/** @param {import('../../../lib/schema/result-schema.js').NodeReport} report */
const byName = (report) => Object.fromEntries(report.nodes.map((n) => [n.name, n]))

test('a name read after the connect (an event) or before it (a handshake header) counts once the client is up', () => {
  const nodes = createNodeTracker({ from, clients: 4 })
  nodes.connected(0)
  nodes.learn(0, 'a')
  nodes.learn(1, 'b')
  assert.equal(byName(nodes.record()).b.connected, 0, 'not connected yet: not on its node')
  nodes.connected(1)
  nodes.connected(2)
  nodes.learn(2, { not: 'a name' })
  const report = nodes.record()
  assert.deepEqual(report.nodes.map((n) => [n.name, n.connected, n.connects]), [['a', 1, 1], ['b', 1, 1]])
  assert.equal(report.unknown, 1, 'client 2 is up on no known node')
  assert.equal(report.imbalance, 1)
  assert.deepEqual(nodes.byNode(), { a: 1, b: 1 })
})

test('deliveries that come before the client knows its node are counted on it once it does (a line relayed before the connect handler named the node)', () => {
  const nodes = createNodeTracker({ from, clients: 2 })
  nodes.receipt(0, 5, 40)
  nodes.receipt(0, 7)
  nodes.missing(0)
  nodes.connected(0)
  nodes.receipt(1, 9, 60)
  assert.deepEqual(nodes.record().nodes, [], 'no node known yet: held, not dropped')
  nodes.learn(0, 'a')
  nodes.learn(1, 'b')
  nodes.connected(1)
  const report = byName(nodes.record())
  assert.deepEqual([report.a.received, report.a.missing, report.a.relative.count, report.a.relative.max], [2, 1, 2, 7])
  assert.deepEqual([report.a.absolute?.count, report.a.absolute?.max], [1, 40], 'held absolute delays too, where the message had a send time')
  assert.deepEqual([report.b.received, report.b.relative.count, report.b.absolute?.max], [1, 1, 60])
})

test('a drop leaves its node; a client back on another node is moved, back on the same one is not', () => {
  const nodes = createNodeTracker({ from, clients: 3 })
  for (const [i, name] of /** @type {[number, string][]} */ ([[0, 'a'], [1, 'a'], [2, 'b']])) {
    nodes.connected(i)
    nodes.learn(i, name)
  }
  nodes.learn(0, 'a')
  nodes.disconnected(0)
  nodes.disconnected(1)
  assert.deepEqual(nodes.byNode(), { a: 0, b: 1 })
  nodes.connected(0)
  nodes.learn(0, 'b')
  nodes.connected(1)
  nodes.learn(1, 'a')
  const report = nodes.record()
  const rows = byName(report)
  assert.deepEqual([rows.a.connected, rows.a.connects, rows.a.drops, rows.a.moved], [1, 3, 2, 0])
  assert.deepEqual([rows.b.connected, rows.b.connects, rows.b.drops, rows.b.moved], [2, 2, 0, 1])
  assert.equal(report.moved, 1)
  assert.equal(report.imbalance, 2)
})

test('names past the bound share the row other, which says how many it holds', () => {
  const nodes = createNodeTracker({ from, clients: 6, maxNames: 2 })
  for (let i = 0; i < 6; i++) {
    nodes.connected(i)
    nodes.learn(i, `n${i % 4}`)
  }
  const report = nodes.record()
  assert.deepEqual(report.nodes.map((n) => [n.name, n.connected, n.folded]), [['n0', 2, undefined], ['n1', 2, undefined], ['other', 2, 2]])
  assert.equal(report.imbalance, 1, 'the other row is no node')
})

test('deliveries per node: each counted receipt with its delay, each missing one at close; the sender\'s own line neither', () => {
  const nodes = createNodeTracker({ from, clients: 40 })
  const rec = createRecorder({ clients: 40, messageTimeoutMs: 60000, quietMs: 0, nodes })
  for (let i = 0; i < 40; i++) {
    rec.setConnected(i, true)
    nodes.connected(i)
    nodes.learn(i, i < 30 ? 'a' : 'b')
  }
  rec.ownLine(0, [{ id: 'l1' }])
  for (let i = 1; i < 40; i++) if (i !== 5 && i !== 35) rec.receive(i, 'chat', [{ id: 'l1' }])
  rec.receive(0, 'chat', [{ id: 'l1' }])
  // A line stamped with its send time 250 ms ago: absolute delays per node too.
  const sentAt = Date.now() - 250
  for (let i = 0; i < 40; i++) rec.receive(i, 'chat', [{ id: 'l2', sentAt }])
  rec.closeAll()
  const rows = byName(nodes.record())
  assert.deepEqual([rows.a.received, rows.a.missing, rows.a.relative.count], [28 + 30, 1, 28 + 30])
  assert.deepEqual([rows.b.received, rows.b.missing, rows.b.relative.count], [9 + 10, 1, 9 + 10])
  assert.deepEqual([rows.a.absolute?.count, rows.b.absolute?.count], [30, 10], 'only l2 has a send time')
  assert.ok(Number(rows.a.absolute?.p50) >= 250 && Number(rows.a.absolute?.p50) < 10000, `absolute p50 ${rows.a.absolute?.p50}`)
  const reports = rec.reports()
  assert.equal(reports.reduce((n, r) => n + r.received, 0), rows.a.received + rows.b.received)
  assert.equal(reports.reduce((n, r) => n + r.missing, 0), rows.a.missing + rows.b.missing)
})

test('bad --node-from exits 2 naming the flag, before any socket opens', async (t) => {
  /** @type {[string[], RegExp][]} */
  const cases = [
    [['--node-from', 'pid:1', '--url', 'http://127.0.0.1:1'], /--node-from must be cookie:NAME, header:NAME or event:NAME\[\.path\].*"pid:1"/],
    [['--node-from', 'event:node', '--protocol', 'websocket', '--url', 'ws://127.0.0.1:1/feed'], /--node-from works with Socket\.IO servers/],
    [['--node-from', 'header:x node', '--url', 'http://127.0.0.1:1'], /--node-from must be .*: header names are HTTP tokens/]
  ]
  await expectRefusals(t, ['client.js'], cases)
})

test('cookieValue: the latest cookie of that name in a client\'s jar, whatever its path; none is null', () => {
  const scope = { secure: false, host: '127.0.0.1', path: '/socket.io/' }
  const jar = storeCookies(null, ['SERVERID=n1; path=/', 'SERVERIDX=x', 'io=abc'], scope)
  assert.equal(cookieValue(jar, 'SERVERID'), 'n1')
  assert.equal(cookieValue(storeCookies(jar, 'SERVERID=n2; path=/', scope), 'SERVERID'), 'n2', 'a later Set-Cookie replaces it')
  assert.equal(cookieValue(jar, 'SERVER'), null)
  assert.equal(cookieValue(null, 'SERVERID'), null)
})
