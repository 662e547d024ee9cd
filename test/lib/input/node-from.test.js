import { test } from 'node:test'
import assert from 'node:assert/strict'
import { IoswarmError } from '../../../lib/errors.js'
import { MAX_NODE_NAMES, imbalanceOf, mergeNodeReports, nodeName, parseNodeFrom } from '../../../lib/input/node-from.js'
import { createHistogram, decode, encode, recordMs, summarize } from '../../../lib/measure/histogram.js'

test('--node-from reads cookie:NAME, header:NAME (lower-cased) and event:NAME[.path]', () => {
  assert.equal(parseNodeFrom(undefined, '--node-from'), null)
  assert.deepEqual(parseNodeFrom('cookie:SERVERID', '--node-from'), { spec: 'cookie:SERVERID', kind: 'cookie', name: 'SERVERID', path: null })
  assert.deepEqual(parseNodeFrom('header:X-Node', '--node-from'), { spec: 'header:X-Node', kind: 'header', name: 'x-node', path: null })
  assert.deepEqual(parseNodeFrom('event:node', '--node-from'), { spec: 'event:node', kind: 'event', name: 'node', path: null })
  assert.deepEqual(parseNodeFrom('event:hello.server.name', '--node-from'), {
    spec: 'event:hello.server.name',
    kind: 'event',
    name: 'hello',
    path: 'server.name'
  })
})

test('a bad --node-from is a usage error naming the flag and the forms', () => {
  for (const bad of ['pid:1', 'cookie', 'cookie:', 'event:', 'event:.x', 'event:node..x', 'header:x node', 'node']) {
    assert.throws(() => parseNodeFrom(bad, '--node-from'), (/** @type {any} */ error) => {
      assert.ok(error instanceof IoswarmError)
      assert.equal(error.exitCode, 2)
      assert.match(error.message, /--node-from/)
      return true
    }, bad)
  }
  assert.throws(() => parseNodeFrom('pid:1', '--node-from'), /must be cookie:NAME, header:NAME or event:NAME\[\.path\]/)
})

test('node names: strings trimmed and bounded, numbers as text, anything else none', () => {
  assert.equal(nodeName(' a '), 'a')
  assert.equal(nodeName(3), '3')
  assert.equal(nodeName('x'.repeat(500))?.length, 100)
  for (const none of ['', '  ', null, undefined, {}, NaN]) assert.equal(nodeName(none), null)
})

test('imbalance: fullest ÷ emptiest node holding a client, the other row left out', () => {
  assert.equal(imbalanceOf([{ name: 'a', connected: 30 }, { name: 'b', connected: 20 }, { name: 'c', connected: 0 }]), 1.5)
  assert.equal(imbalanceOf([{ name: 'a', connected: 7 }, { name: 'other', folded: 3, connected: 1 }]), 1)
  assert.equal(imbalanceOf([{ name: 'a', connected: 2 }, { name: 'b', connected: 3 }]), 1.5)
  assert.equal(imbalanceOf([{ name: 'a', connected: 1 }, { name: 'b', connected: 3 }, { name: 'c', connected: 3 }]), 3)
  assert.equal(imbalanceOf([]), null)
})

/**
 * @param {string} name
 * @param {Partial<import('../../../lib/schema/result-schema.js').NodeRow>} counts
 * @param {number[]} delaysMs
 * @returns {import('../../../lib/schema/result-schema.js').NodeRow}
 */
function row (name, counts, delaysMs = []) {
  const h = createHistogram()
  for (const d of delaysMs) recordMs(h, d)
  return { name, connected: 0, connects: 0, drops: 0, moved: 0, received: 0, missing: 0, ...counts, relative: { ...summarize(h), histogram: encode(h) } }
}

test('merging node reports: rows of one name summed, histograms merged, imbalance from the sums', () => {
  const a = {
    from: 'event:node',
    nodes: [row('n1', { connected: 3, connects: 4, drops: 1, moved: 1, received: 10, missing: 1 }, [1, 2]), row('n2', { connected: 1, connects: 1 }, [8])],
    unknown: 1,
    moved: 1,
    imbalance: 3
  }
  const b = { from: 'event:node', nodes: [row('n2', { connected: 2, connects: 2, moved: 2, received: 5 }, [4])], unknown: 0, moved: 2, imbalance: 1 }
  const merged = mergeNodeReports([a, undefined, b])
  assert.ok(merged)
  assert.deepEqual(
    merged.nodes.map((n) => [n.name, n.connected, n.connects, n.drops, n.moved, n.received, n.missing]),
    [['n1', 3, 4, 1, 1, 10, 1], ['n2', 3, 3, 0, 2, 5, 0]]
  )
  assert.equal(merged.nodes[1].relative.count, 2)
  assert.equal(decode(merged.nodes[1].relative.histogram).totalCount, 2)
  assert.equal(merged.nodes[1].absolute, undefined, 'rows of older results carry no absolute delays: none made up')
  // Absolute delays merge as relative ones do; a row without them (an older result) adds none.
  /** @param {import('../../../lib/schema/result-schema.js').NodeRow} r @param {number[]} delaysMs */
  const withAbsolute = (r, delaysMs) => ({ ...r, absolute: row(r.name, {}, delaysMs).relative })
  const both = mergeNodeReports([
    { ...a, nodes: [withAbsolute(a.nodes[1], [100, 300])] },
    { ...b, nodes: [withAbsolute(b.nodes[0], [200])] },
    { ...b, nodes: [row('n2', { connected: 1 })] }
  ])
  assert.equal(both?.nodes[0].absolute?.count, 3)
  assert.equal(Math.round(Number(both?.nodes[0].absolute?.max)), 300)
  assert.equal(merged.moved, 3)
  assert.equal(merged.unknown, 1)
  assert.equal(merged.imbalance, 1)
  assert.equal(mergeNodeReports([undefined, null]), undefined)
})

test('merging keeps the first 50 names by connects and folds the rest, with their own folded rows, into other', () => {
  const many = (/** @type {number} */ from) => ({
    from: 'cookie:S',
    nodes: Array.from({ length: 40 }, (_, k) => row(`n${from + k}`, { connected: 1, connects: from + k })),
    unknown: 0,
    moved: 0,
    imbalance: 1
  })
  const folded = { from: 'cookie:S', nodes: [{ ...row('other', { connected: 5, connects: 5 }), folded: 7 }], unknown: 0, moved: 0, imbalance: null }
  const merged = /** @type {import('../../../lib/schema/result-schema.js').NodeReport} */ (mergeNodeReports([many(0), many(40), folded]))
  assert.equal(merged.nodes.length, MAX_NODE_NAMES + 1)
  const other = /** @type {import('../../../lib/schema/result-schema.js').NodeRow} */ (merged.nodes.at(-1))
  assert.equal(other.name, 'other')
  assert.equal(other.folded, 30 + 7)
  assert.equal(other.connected, 30 + 5)
  assert.equal(merged.nodes[0].name, 'n79', 'most connects first')
  assert.equal(merged.nodes.reduce((n, r) => n + r.connected, 0), 80 + 5)
})
