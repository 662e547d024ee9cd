/**
 * One interop case: `ioswarm simulate` (the real binary) against a peer server, every client
 * connected as the *server* counts them, every broadcast measured with nothing missing, and a
 * clean exit of the simulator by itself (exit code 0; runCli kills it, and the code is not 0, past
 * its bound of the duration + 20 s). The run ends as soon as its
 * live metrics count the broadcasts closed (SIGTERM: the same end as --duration's timer), its
 * --duration only bounding it.
 */
import assert from 'node:assert/strict'
import { runCli } from '../helpers/cli.js'
import { endWhenMeasured } from '../helpers/measured-end.js'
import { waitFor } from '../helpers/wait.js'

/**
 * What every case runs: 5 clients, all at once, for at most 45 s: room for six simulators
 * starting at once beside other test files on two cores (at a load of 14, 5–9 s went by before
 * their clients were in; at 25, more than 20 s). A healthy case ends in a few seconds, as soon
 * as it is measured, so the bound costs nothing then.
 */
const CLIENTS = 5
const DURATION_S = 45

/**
 * @param {import('node:test').TestContext} t
 * @param {import('../helpers/peers.js').Peer} peer
 * @param {{ engine: string, transport: string, url?: string, namespace?: string, args?: string[], messages?: number }} spec
 * @returns {Promise<any>} the simulator's result
 */
export async function measureAgainst (t, peer, { engine, transport, url = peer.url, namespace = '/', args = [], messages = 2 }) {
  const run = runCli(t, ['bin/ioswarm.js', 'simulate', '-c', String(CLIENTS), '--engine', engine, '-t', transport, '--url', url,
    '--ramp', '0', '--duration', `${DURATION_S}s`, '--event', 'news', '--json', '--metrics-port', '0', ...args], { timeoutMs: (DURATION_S + 20) * 1000 })
  await waitFor(async () => (await peer.count()).byNamespace[namespace] === CLIENTS, {
    timeoutMs: DURATION_S * 1000,
    intervalMs: 50,
    message: `${CLIENTS} clients on ${namespace} as the server counts them`
  })
  await peer.emit(messages)
  await endWhenMeasured(run, { messages, clients: CLIENTS })
  // Exits by itself after its end (SIGTERM once measured, or its duration): runCli's own bound kills it otherwise.
  const { code, stdout, stderr } = await run
  assert.equal(code, 0, `exit code; stderr: ${stderr.slice(-2000)}`)
  const result = JSON.parse(stdout)
  assert.equal(result.clients.everConnected, CLIENTS, `connected: ${JSON.stringify(result.clients.errors)}`)
  assert.deepEqual(result.clients.disconnects, {}, 'no client lost its connection before the end')
  assert.equal(result.messages.length, messages, `messages measured: ${JSON.stringify(result.messages.map((/** @type {any} */ m) => m.id))}`)
  for (const m of result.messages) {
    assert.equal(m.received, CLIENTS, `${m.id} received`)
    assert.equal(m.missing, 0, `${m.id} missing`)
    assert.ok(m.absolute && m.absolute.count === CLIENTS, `${m.id}: absolute latency from its sentAt`)
  }
  return result
}

/**
 * Both engines, every transport; lean polling on both its HTTP clients (the built-in one is the
 * default for http://, undici the other).
 * @type {{ engine: string, transport: string, args?: string[] }[]}
 */
export const MATRIX = [
  ...['sio', 'lean'].flatMap((engine) => ['websocket', 'polling', 'upgrade'].map((transport) => ({ engine, transport }))),
  { engine: 'lean', transport: 'polling', args: ['--http-client', 'undici'] }
]

/**
 * A case's name: engine, transport, and its own flags.
 * @param {{ engine: string, transport: string, args?: string[] }} c
 */
export function caseName (c) {
  return `${c.engine} ${c.transport}${c.args ? ` ${c.args.join(' ')}` : ''}`
}
