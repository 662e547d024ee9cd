/**
 * Behind the load balancer: a swarm through HAProxy (sticky by cookie) or nginx
 * (sticky by client address) to several nodes of a chat app sharing Redis (socket.io 4 with
 * the Redis adapter, python-socketio with AsyncRedisManager), each client reading its node
 * from the event the app sends on connect (--node-from event:node), the balancer's cookie
 * (cookie:SERVERID) or the header it adds (header:X-Served-By). Checked against what each
 * node says it holds: every client connected, the per-node counts, no line relayed with
 * socket.broadcast.emit missing; and a node SIGKILLed mid-run: its clients come back on the
 * others, counted as moved.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { startChatNodes, startHaproxy, startNginx } from '../helpers/balancer.js'
import { runCli } from '../helpers/cli.js'
import { getRedisUrl } from '../helpers/redis.js'
import { startTestSwarm } from '../helpers/swarm.js'
import { waitFor } from '../helpers/wait.js'

const CLIENTS = 24
/** Bounds of every wait: generous, for a loaded machine. */
const WAIT_MS = 30000
/** Short heartbeats: a killed node's clients notice within seconds. */
const PING_INTERVAL_MS = 2000

/**
 * The chat nodes and a balancer in front of them; null after a skip (missing tool).
 * @param {import('node:test').TestContext} t
 * @param {'node' | 'python'} kind
 * @param {'haproxy' | 'nginx'} balancer
 */
async function deployment (t, kind, balancer) {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return null
  const nodes = await startChatNodes(t, { kind, count: kind === 'node' ? 3 : 2, redisUrl, pingIntervalMs: PING_INTERVAL_MS })
  if (!nodes) return null
  const front = balancer === 'haproxy' ? await startHaproxy(t, nodes) : await startNginx(t, nodes)
  return front && { nodes, front }
}

/**
 * CLIENTS clients through the balancer, each reading its node from the app's `node` event.
 * @param {import('node:test').TestContext} t
 * @param {import('../helpers/balancer.js').Balancer} front
 * @param {'haproxy' | 'nginx'} balancer
 * @param {Record<string, unknown>} options engine, transport, emits … (nodeFrom: event:node unless given)
 */
function swarmBehind (t, front, balancer, options) {
  return startTestSwarm(t, {
    url: front.url,
    clients: CLIENTS,
    nodeFrom: 'event:node',
    duration: null,
    // nginx hashes the client's address: several loopback addresses spread the clients.
    ...(balancer === 'nginx' ? { sourceAddress: '127.0.0.2-127.0.0.9' } : {}),
    ...options
  })
}

/**
 * Each node's own count of its sockets, by name.
 * @param {import('../helpers/balancer.js').ChatNode[]} nodes
 */
async function nodeCounts (nodes) {
  return Object.fromEntries(await Promise.all(nodes.map(async (n) => [n.name, await n.connected()])))
}

/**
 * Connected clients by node in a result (nodes with none left out, as node counts of 0 are).
 * @param {import('../../lib/schema/result-schema.js').SimResult} result
 */
function resultCounts (result) {
  return Object.fromEntries((result.nodes?.nodes ?? []).filter((n) => n.connected > 0).map((n) => [n.name, n.connected]))
}

/**
 * A swarm of `engine` clients on `transport` through the balancer: every client connected, the
 * per-node counts as the nodes say, no relayed line missing or expected back at its sender.
 * @param {import('node:test').TestContext} t
 * @param {{ nodes: import('../helpers/balancer.js').ChatNode[], front: import('../helpers/balancer.js').Balancer }} deployed its group's
 * @param {{ balancer: 'haproxy' | 'nginx', engine: string, transport: string, nodeFrom?: string }} setup
 */
async function chatThroughBalancer (t, { nodes, front }, { balancer, engine, transport, nodeFrom = 'event:node' }) {
  // The deployment is its group's: the case before's clients are gone from every node first.
  await waitFor(async () => Object.values(await nodeCounts(nodes)).every((n) => n === 0), {
    timeoutMs: WAIT_MS,
    message: 'no client left on any node from the case before'
  })
  const swarm = swarmBehind(t, front, balancer, {
    engine,
    transport,
    nodeFrom,
    emit: 'chat {"text":"hi from {{i}}"}',
    emitters: 4,
    emitRate: '4/s',
    emitAck: true
  })
  await waitFor(() => swarm.progress?.connected === CLIENTS, {
    timeoutMs: WAIT_MS,
    message: () => `${CLIENTS} clients connected (${swarm.progress?.connected})`
  })
  await waitFor(async () => Object.values(await nodeCounts(nodes)).reduce((a, b) => a + b, 0) === CLIENTS, {
    timeoutMs: WAIT_MS,
    message: 'the nodes hold every client'
  })
  // Lines first received before every client was in are judged on who got them, not on missing: a
  // client counts as expecting a line once it is connected on its side, which can come just after
  // the node relayed the line (seen at load: a ramp line of lean upgrade, 13 of 20 "missing").
  const allInAt = Date.now()
  // Emitters start as they connect: wait for lines that every other client expected.
  await waitFor(() => swarm.closed.filter((m) => m.event === 'chat' && m.expected === CLIENTS - 1).length >= 8, {
    timeoutMs: WAIT_MS,
    message: '8 relayed lines to everyone closed'
  })
  const held = await nodeCounts(nodes)
  const result = await swarm.stop()

  const { errors, disconnects, reconnects, byTransport } = result.clients
  const why = JSON.stringify({ errors, disconnects, reconnects, byTransport, held })
  assert.equal(result.clients.connected, CLIENTS, why)
  assert.deepEqual(result.clients.errors, {}, why)
  assert.equal(result.clients.reconnects, 0, why)
  assert.deepEqual(resultCounts(result), Object.fromEntries(Object.entries(held).filter(([, n]) => n > 0)))
  const report = /** @type {import('../../lib/schema/result-schema.js').NodeReport} */ (result.nodes)
  assert.equal(report.from, nodeFrom)
  assert.equal(report.unknown, 0)
  assert.equal(report.moved, 0)
  const lines = result.messages.filter((m) => m.event === 'chat')
  const judged = lines.filter((m) => m.firstAt > allInAt)
  assert.ok(judged.length >= 1, `lines after every client was in: ${judged.length}`)
  const short = judged.filter((m) => m.missing > 0).map((m) => [m.id, m.expected, m.received, m.missing])
  assert.equal(
    judged.reduce((n, m) => n + m.missing, 0),
    0,
    `no relayed line missing: [id, expected, received, missing] ${JSON.stringify(short)}; by transport ${JSON.stringify(result.clients.byTransport)}`
  )
  // A line is never expected back at its sender.
  assert.ok(lines.every((m) => m.expected <= CLIENTS - 1), `expected ${lines.map((m) => m.expected)}`)
  assert.equal(report.nodes.reduce((n, r) => n + r.received, 0), lines.reduce((n, m) => n + m.received, 0), 'every delivery is counted on a node')
  assert.equal(report.nodes.reduce((n, r) => n + r.missing, 0), lines.reduce((n, m) => n + m.missing, 0), 'every missing copy is counted on a node')
  if (balancer === 'haproxy') assert.equal(report.nodes.length, nodes.length, 'round robin puts clients on every node')
  const counts = Object.values(resultCounts(result))
  assert.equal(report.imbalance, Math.round(Math.max(...counts) / Math.min(...counts) * 1000) / 1000)
}

/**
 * A chat case: its clients, their transport, where they read their node from (event:node unless given).
 * @typedef {{ engine: string, transport: string, nodeFrom?: string }} ChatCase
 */
/** @type {{ kind: 'node' | 'python', balancer: 'haproxy' | 'nginx', cases: ChatCase[] }[]} */
const GROUPS = []
for (const kind of /** @type {const} */ (['node', 'python'])) {
  for (const balancer of /** @type {const} */ (['haproxy', 'nginx'])) {
    /** @type {ChatCase[]} */
    const cases = []
    for (const engine of ['sio', 'lean']) cases.push({ engine, transport: 'websocket' })
    // Long-polling behind a cookie-sticky balancer holds a session only with the balancer's cookie
    // kept; --node-from cookie:SERVERID reads it from each client's jar, header:X-Served-By from the
    // header HAProxy adds to the handshake's answers (HAProxy names servers as the nodes). Each
    // engine and each transport reads each kind once.
    if (kind === 'node' && balancer === 'haproxy') {
      for (const [engine, transport, nodeFrom] of [['sio', 'polling', 'cookie:SERVERID'], ['sio', 'websocket', 'header:X-Served-By'],
        ['lean', 'polling', 'header:X-Served-By'], ['lean', 'websocket', 'cookie:SERVERID']]) cases.push({ engine, transport, nodeFrom })
    }
    // Long-polling and poll-then-upgrade through both balancers, in front of both kinds of nodes:
    // HAProxy keeps a client by its cookie (the jar), nginx by its address.
    for (const transport of ['polling', 'upgrade']) for (const engine of ['sio', 'lean']) cases.push({ engine, transport })
    GROUPS.push({ kind, balancer, cases })
  }
}

// One deployment per kind of node and balancer, shared by its cases one after the other (its
// start is a third of a case): each case starts with no client on any node, and its own swarm.
for (const { kind, balancer, cases } of GROUPS) {
  test(`behind ${balancer} in front of ${kind} chat nodes, ${cases.length} cases on one deployment: ` +
    'every client connected, per-node counts as the nodes say, no relayed line missing', async (t) => {
    const deployed = await deployment(t, kind, balancer)
    if (!deployed) return
    for (const c of cases) {
      const name = c.nodeFrom
        ? `${c.engine} ${c.transport} clients behind haproxy read their node from its ${c.nodeFrom.split(':')[0]}`
        : `${c.engine} ${c.transport === 'websocket' ? 'WebSocket' : c.transport} clients`
      await t.test(name, (t) => chatThroughBalancer(t, deployed, { balancer, ...c }))
    }
    if (kind === 'node' && balancer === 'haproxy') {
      await t.test('lean polling clients log in through haproxy first: ' +
        'the session cookie and the balancer\'s cookie from the login keep each on the node that holds its session',
      (t) => loginThroughBalancer(t, deployed))
    }
  })
}

/**
 * A cookie-session login, a case of the node/haproxy deployment: lean polling clients log in
 * through HAProxy first; the login's answer brings HAProxy's cookie, which keeps each client on
 * the node that holds its session (namespace /members refuses a socket without one).
 * @param {import('node:test').TestContext} t
 * @param {{ nodes: import('../helpers/balancer.js').ChatNode[], front: import('../helpers/balancer.js').Balancer }} deployed
 */
async function loginThroughBalancer (t, { nodes, front }) {
  const swarm = swarmBehind(t, front, 'haproxy', {
    url: `${front.url}/members`,
    engine: 'lean',
    transport: 'polling',
    nodeFrom: 'cookie:SERVERID',
    login: 'POST /login {"user":"u{{i}}"}'
  })
  await waitFor(() => swarm.progress?.connected === CLIENTS, {
    timeoutMs: WAIT_MS,
    message: () => `${CLIENTS} clients connected (${swarm.progress?.connected}, errors ${swarm.progress?.errors})`
  })
  await waitFor(async () => Object.values(await nodeCounts(nodes)).reduce((a, b) => a + b, 0) === CLIENTS, {
    timeoutMs: WAIT_MS,
    message: 'the nodes hold every client'
  })
  const held = await nodeCounts(nodes)
  const result = await swarm.stop()
  assert.equal(result.clients.connected, CLIENTS)
  assert.deepEqual(result.clients.errors, {})
  assert.equal(result.logins?.ok, CLIENTS)
  assert.deepEqual(result.logins?.failed, {})
  assert.deepEqual(resultCounts(result), Object.fromEntries(Object.entries(held).filter(([, n]) => n > 0)))
  assert.equal(result.nodes?.nodes.length, nodes.length, 'round robin of the logins puts clients on every node')
}

for (const [balancer, nodeFrom] of /** @type {const} */ ([['haproxy', 'event:node'], ['haproxy', 'cookie:SERVERID'], ['nginx', 'event:node']])) {
  for (const engine of ['sio', 'lean']) {
    test(`${engine} clients of a node SIGKILLed behind ${balancer} come back on the other nodes, counted as moved (--node-from ${nodeFrom})`, async (t) => {
      const deployed = await deployment(t, 'node', balancer)
      if (!deployed) return
      const { nodes, front } = deployed
      const swarm = swarmBehind(t, front, balancer, { engine, transport: 'websocket', reconnectSpread: '1s', nodeFrom })
      await waitFor(async () => Object.values(await nodeCounts(nodes)).reduce((a, b) => a + b, 0) === CLIENTS && swarm.progress?.connected === CLIENTS,
        { timeoutMs: WAIT_MS, message: 'every client connected' })
      const before = await nodeCounts(nodes)
      // The fullest node: its drops are a storm (at least 5 clients at once).
      const victim = nodes.reduce((a, b) => (before[b.name] > before[a.name] ? b : a))
      victim.kill()
      const survivors = nodes.filter((n) => n !== victim)
      await waitFor(async () => {
        const counts = await Promise.all(survivors.map((n) => n.connected()))
        return counts.reduce((a, b) => a + b, 0) === CLIENTS && swarm.progress?.connected === CLIENTS
      }, { timeoutMs: WAIT_MS, message: 'every client back on the surviving nodes' })
      const held = await nodeCounts(survivors)
      const result = await swarm.stop()

      const report = /** @type {import('../../lib/schema/result-schema.js').NodeReport} */ (result.nodes)
      const row = (/** @type {string} */ name) => report.nodes.find((n) => n.name === name)
      assert.equal(report.moved, before[victim.name], 'every client of the killed node moved')
      assert.equal(row(victim.name)?.connected, 0)
      assert.equal(row(victim.name)?.drops, before[victim.name])
      assert.equal(row(victim.name)?.moved, 0)
      assert.deepEqual(resultCounts(result), Object.fromEntries(Object.entries(held).filter(([, n]) => n > 0)))
      assert.equal(report.unknown, 0)
      const storm = result.clients.storms?.list[0]
      assert.equal(storm?.dropped, before[victim.name])
      assert.equal(storm?.back, before[victim.name])
    })
  }
}

test('ioswarm run through HAProxy: the simulators\' node reports merge into the run\'s, ' +
  'broadcasts reach every node\'s clients, nodes.imbalance is judged', async (t) => {
  const deployed = await deployment(t, 'node', 'haproxy')
  if (!deployed) return
  const out = mkdtempSync(path.join(os.tmpdir(), 'ioswarm-nodes-run-'))
  t.after(() => rmSync(out, { recursive: true, force: true }))
  const { code, stderr } = await runCli(t, [
    'bin/ioswarm.js', 'run', '--target', deployed.front.url, '--token', 'any', '--simulators', '2', '--clients-per-simulator', '12',
    '--engine', 'lean', '--transport', 'websocket', '--node-from', 'event:node', '--rounds', '2x200', '--ramp', '500ms', '--quiet', '--out', out,
    '--assert', 'missing=0', '--assert', 'nodes.imbalance<3', '--assert', 'nodes.imbalance<1'], { timeoutMs: 120000 })
  assert.equal(code, 3, `one threshold fails: exit 3 (${stderr})`)
  const result = /** @type {import('../../lib/schema/result-schema.js').RunResult} */ (JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8')))
  const [d] = result.distributions
  const report = /** @type {import('../../lib/schema/result-schema.js').NodeReport} */ (d.nodes)
  // HAProxy's round robin over both simulators' connects (and their first-contact probes): every node holds some of the 24.
  assert.deepEqual(report.nodes.map((n) => n.name).sort(), ['sio-1', 'sio-2', 'sio-3'])
  assert.equal(report.nodes.reduce((n, r) => n + r.connected, 0), 24)
  assert.ok(report.nodes.every((n) => n.connected > 0 && n.connects === n.connected && n.missing === 0 && n.moved === 0), JSON.stringify(report.nodes))
  assert.ok(report.nodes.every((n) => n.received === n.connected * 2 && n.relative.count === n.received), 'each node\'s clients got both broadcasts')
  assert.ok(report.nodes.every((n) => n.absolute?.count === n.received), 'each delivery\'s delay after its send, per node, merged over the simulators')
  const counts = report.nodes.map((n) => n.connected)
  const imbalance = Math.round(Math.max(...counts) / Math.min(...counts) * 1000) / 1000
  assert.equal(report.imbalance, imbalance)
  assert.deepEqual(result.thresholds?.map((v) => [v.expression, v.ok, v.actual]), [
    ['missing=0', true, 'missing 0 of 48 expected deliveries (0%)'],
    ['nodes.imbalance<3', true, `nodes.imbalance ${imbalance} (2x12)`],
    ['nodes.imbalance<1', false, `nodes.imbalance ${imbalance} (2x12)`]
  ])
  assert.ok(
    d.timeline.some((p) => p.byNode && Object.values(p.byNode).reduce((a, b) => a + b, 0) === 12),
    'each simulator\'s samples count its clients by node'
  )
  assert.match(stderr, new RegExp(`nodes \\(event:node\\): 3 seen, imbalance ${imbalance} `))
})
