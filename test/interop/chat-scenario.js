/**
 * examples/chat.js run by the real binary against an app peer: every client connects with the
 * token from its environment ({{env.APP_TOKEN}}), joins its room from the scenario's
 * onConnect, and says a line twice a second with an ack; the server relays lines to the room.
 */
import assert from 'node:assert/strict'
import { runCli } from '../helpers/cli.js'
import { TOKEN } from './app-case.js'

const CLIENTS = 6
const DURATION_S = 5

/**
 * @param {import('node:test').TestContext} t
 * @param {{ url: string }} peer
 * @param {{ engine: string, transport: string }} spec
 * @returns {Promise<import('../../lib/schema/result-schema.js').SimResult>}
 */
export async function chatScenario (t, peer, { engine, transport }) {
  const { code, stdout, stderr } = await runCli(t, [
    'bin/ioswarm.js', 'simulate', '-c', String(CLIENTS), '--engine', engine, '-t', transport, '--url', peer.url,
    '--rooms', '2', '--event', 'chat', '--scenario', 'examples/chat.js', '--auth', '{"token":"{{env.APP_TOKEN}}","user":"u{{i}}"}',
    '--ramp', '0', '--duration', `${DURATION_S}s`, '--json', '--quiet'
  ], { env: { APP_TOKEN: TOKEN, CHAT_LINE_EVERY_MS: '500' }, timeoutMs: (DURATION_S + 30) * 1000 })
  assert.equal(code, 0, `exit code; stderr: ${stderr.slice(-2000)}`)
  const result = JSON.parse(stdout)
  assert.equal(result.clients.everConnected, CLIENTS, `connected: ${JSON.stringify(result.clients.errors)}`)
  const hooks = result.scenario?.hooks
  assert.deepEqual(hooks?.errors, {}, 'no hook threw')
  assert.ok(hooks.calls.onConnect >= CLIENTS, `onConnect: ${JSON.stringify(hooks.calls)}`)
  const emits = hooks.emits
  assert.ok(emits.acked >= CLIENTS, `lines acked: ${JSON.stringify(emits)}`)
  assert.equal(emits.acked + emits.timedOut + emits.failed, emits.sent, `every line accounted for: ${JSON.stringify(emits)}`)
  assert.equal(emits.ackTime.count, emits.acked, 'each ack timed')
  const lines = result.messages.filter((/** @type {any} */ m) => m.event === 'chat')
  assert.ok(lines.length >= CLIENTS, `lines measured: ${lines.length}`)
  for (const m of lines) assert.ok(m.absolute && m.absolute.count === m.received, `line ${m.id}: absolute latency from its sentAt`)
  return result
}
