/**
 * `ioswarm simulate --protocol sse`, the real binary, against an event stream server written
 * here (node:http on loopback port 0): events measured by type with their own id and send
 * time, the summary's lines, and a stream that is not there stopping before the swarm (exit 2).
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { runCli } from '../helpers/cli.js'
import { endWhenMeasured } from '../helpers/measured-end.js'
import { waitFor } from '../helpers/wait.js'

const CLIENTS = 10

/**
 * An event stream at /events (every other path 404), its open streams kept; closed after the test.
 * @param {import('node:test').TestContext} t
 */
async function startStreams (t) {
  /** @type {Set<http.ServerResponse>} */
  const streams = new Set()
  const server = http.createServer((req, res) => {
    if (req.url !== '/events') {
      res.writeHead(404).end('no')
      return
    }
    res.writeHead(200, { 'Content-Type': 'text/event-stream' })
    res.write(': welcome\n\n')
    streams.add(res)
    res.on('close', () => streams.delete(res))
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve(undefined)) }))
  const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`
  const send = (/** @type {string} */ text) => { for (const res of streams) res.write(text) }
  return { url, streams, send }
}

test('simulate --protocol sse: --event types measured by their id and send time, others counted; the summary says what it read', async (t) => {
  const { url, streams, send } = await startStreams(t)
  const run = runCli(t, ['bin/ioswarm.js', 'simulate', '--protocol', 'sse', '--url', `${url}/events`, '-c', String(CLIENTS), '--ramp', '0',
    '--duration', '20s', '--event', 'score', '--id-field', 'seq', '--sent-at-field', 'ts', '--json', '--metrics-port', '0'], { timeoutMs: 40000 })
  await waitFor(() => streams.size === CLIENTS, { timeoutMs: 20000, message: `${CLIENTS} streams open` })
  send(`event: score\nid: 1\ndata: {"seq":1,"ts":${Date.now()}}\n\nevent: heartbeat\ndata: {}\n\n`)
  send(`event: score\nid: 2\ndata: {"seq":2,"ts":${Date.now()}}\n\n`)
  await endWhenMeasured(run, { messages: 2, clients: CLIENTS })
  const { code, stdout, stderr } = await run
  assert.equal(code, 0, stderr.slice(-2000))
  const result = JSON.parse(stdout)
  assert.deepEqual(result.messages.map((/** @type {any} */ m) => [m.id, m.event, m.received, m.missing, m.absolute?.count]),
    [['1', 'score', CLIENTS, 0, CLIENTS], ['2', 'score', CLIENTS, 0, CLIENTS]])
  assert.deepEqual(result.clients.unmeasuredEvents, { heartbeat: CLIENTS })
  assert.equal(result.server.protocol, 'Server-Sent Events (text/event-stream)')
  assert.match(stderr, /ioswarm simulate \S+: 10 clients → http:\/\/127\.0\.0\.1:\d+\/events, Server-Sent Events \(text\/event-stream\)/)
  assert.match(stderr, /by transport: event stream 10\/10/)
  assert.match(stderr, /\[\d+s\] running {2}connected 10\/10 \(event stream 10\/10\)/, 'the progress line')
})

test('simulate --protocol sse at a path with no stream: exit 2 before any client starts, with the reason', async (t) => {
  const { url } = await startStreams(t)
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'simulate', '--protocol', 'sse', '--url', `${url}/nothing`, '-c', '2', '--duration', '5s'])
  assert.equal(code, 2, stderr)
  assert.match(stderr, /\/nothing answered HTTP 404: no event stream at that path: nothing was started; check --url/)
})

test('--node-from with --protocol sse: which node served each stream, by a header, a cookie or an event', async (t) => {
  let n = 0
  const server = http.createServer((req, res) => {
    const node = `n${n++ % 2}`
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'X-Node': node, 'Set-Cookie': `SERVERID=${node}; Path=/` })
    res.write(`event: node\ndata: ${node}\n\n`)
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve(undefined)) }))
  const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/events`
  for (const from of ['header:x-node', 'cookie:SERVERID', 'event:node']) {
    n = 0
    const { code, stdout, stderr } = await runCli(t, ['bin/ioswarm.js', 'simulate', '--protocol', 'sse', '--url', url, '-c', '4', '--ramp', '0',
      '--duration', '2s', '--node-from', from, '--json'], { timeoutMs: 30000 })
    assert.equal(code, 0, stderr.slice(-2000))
    const { nodes } = JSON.parse(stdout)
    assert.deepEqual(nodes.nodes.map((/** @type {any} */ row) => [row.name, row.connects]).sort(), [['n0', 2], ['n1', 2]], from)
  }
})
