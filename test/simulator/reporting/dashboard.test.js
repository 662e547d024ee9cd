/**
 * `ioswarm simulate --dashboard` end to end against the reference server on port 0: the page
 * loads, the stream carries the swarm's seconds (connected, delays, emits), an action without
 * the token is refused (403) and changes nothing, with it the clients and the emit rate change
 * (the server's own count follows) and the stop ends the swarm with its result; the same with
 * --workers, whose seconds and merged windows come from the workers' follower, and whose swarm doubles in the room
 * --dashboard reserves by default.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { BIN, runCli } from '../../helpers/cli.js'
import { waitFor } from '../../helpers/wait.js'
import { startTestServer, waitForClients } from '../../helpers/swarm.js'
import { openEvents, request } from '../../results/dashboard/sse-client.js'

/**
 * Starts `simulate --dashboard` and reads its printed URL.
 * @param {import('node:test').TestContext} t
 * @param {string[]} args
 */
async function startSimulate (t, args) {
  const run = runCli(t, [BIN, 'simulate', '--json', '--ramp', '0', '--duration', '120s', '--dashboard', ...args], { timeoutMs: 120000 })
  let url = ''
  await waitFor(() => (url = /dashboard: (http:\S+)/.exec(run.output().stderr)?.[1] ?? ''), { timeoutMs: 30000, message: 'the dashboard line' })
  const base = new URL(url)
  const token = base.searchParams.get('token') ?? ''
  const at = (/** @type {string} */ p) => new URL(p, base).href
  /** @param {string} action @param {unknown} body */
  const act = (action, body) => request(at(`/api/${action}`), { method: 'POST', body, headers: { authorization: `Bearer ${token}` } })
  return { run, at, act, events: openEvents(t, at('/events')) }
}

test('simulate --dashboard: the page, its stream, 403 without the token, clients, emit rate and stop', { timeout: 120000 }, async (t) => {
  const server = await startTestServer(t, { pingIntervalMs: 1000 })
  const { run, at, act, events } = await startSimulate(t, ['--url', server.url, '--clients', '2', '--max-clients', '4',
    '--emit', 'chat {"text":"hi"}', '--emit-rate', '10/s', '--emit-ack'])
  const page = await request(at('/'))
  assert.equal(page.status, 200)
  assert.match(page.text, /data-metric="connected"/)
  assert.equal((await request(at('/assets/charts-live.js'))).status, 200, 'the page\'s chart module is served')
  await waitFor(() => events.events[0]?.type === 'hello', { timeoutMs: 30000, message: 'the hello event' })
  assert.equal(events.events[0].command, 'simulate')
  const state = await request(at('/api/state'))
  assert.deepEqual(state.json.actions, ['stop', 'clients', 'emit-rate'])

  // Without the token: 403, and the swarm keeps its size.
  assert.equal((await request(at('/api/clients'), { method: 'POST', body: { clients: 3 } })).status, 403)
  await waitFor(() => events.seconds().some((s) => s.clients.connected === 2), { timeoutMs: 30000, message: '2 clients in the stream' })
  await waitFor(() => events.seconds().some((s) => s.traffic.emits.acked > 0 && s.delivery.relative !== null), {
    timeoutMs: 30000,
    message: 'acked emits and delays'
  })
  assert.equal(server.stats().connected, 2, 'the refused action changed nothing')

  const grown = await act('clients', { clients: 4 })
  assert.equal(grown.status, 200, grown.text)
  await waitForClients(server, 4)
  await waitFor(() => events.seconds().some((s) => s.clients.connected === 4), { timeoutMs: 30000, message: '4 clients in the stream' })
  const tooMany = await act('clients', { clients: 5 })
  assert.equal(tooMany.status, 409)
  assert.match(tooMany.json.error, /--max-clients 5/)
  assert.equal((await act('emit-rate', { rate: 'often' })).status, 400)
  assert.equal((await act('emit-rate', { rate: '1/s' })).status, 200)

  assert.equal((await act('stop', {})).status, 200)
  const done = await run
  assert.equal(done.code, 0, done.stderr)
  await waitFor(() => events.ended, { timeoutMs: 30000, message: 'the page\'s stream ended by the swarm\'s end' })
  const result = JSON.parse(done.stdout)
  assert.deepEqual(result.actions.map((/** @type {any} */ a) => [a.action, a.value, a.ok]), [
    ['clients', 4, true], ['clients', 5, false], ['emit-rate', 'often', false], ['emit-rate', '1/s', true], ['stop', null, true]
  ])
  const marked = events.events.filter((e) => e.type === 'action').map((e) => `${e.action} ${e.value}`)
  assert.deepEqual(marked, result.actions.map((/** @type {any} */ a) => `${a.action} ${a.value}`), 'every action is an event of the stream')
  assert.equal(events.seconds().at(-1).totals.emitsSent, result.scenario.emits.sent, 'the stream\'s emits add up to the result\'s')
  assert.ok(events.events.some((e) => e.type === 'log' && /2 clients →/.test(e.text)), 'simulate\'s lines are the page\'s log')
})

test('simulate --workers 2 --dashboard: the workers\' seconds, each one named; the swarm doubles without --max-clients', { timeout: 120000 }, async (t) => {
  const server = await startTestServer(t, { pingIntervalMs: 1000 })
  const { run, act, events } = await startSimulate(t, ['--url', server.url, '--clients', '4', '--workers', '2', '--window', '1s'])
  await waitFor(() => events.seconds().some((s) => s.clients.connected === 4 && Object.keys(s.clients.bySimulator).length === 2),
    { timeoutMs: 60000, message: '4 clients of 2 workers in the stream' })
  // The workers' windows merged as they close (both workers' clients in one), while the swarm runs.
  await waitFor(() => events.events.some((e) => e.type === 'window' && e.window.simulators === 2 && e.window.clients.connected === 4),
    { timeoutMs: 30000, message: 'a merged window of both workers' })
  // The room --dashboard reserves by default: twice the swarm.
  assert.match(run.output().stderr, /dashboard: room for 8 clients/)
  const grown = await act('clients', { clients: 8 })
  assert.equal(grown.status, 200, grown.text)
  await waitForClients(server, 8)
  await waitFor(() => events.seconds().some((s) => s.clients.connected === 8), { timeoutMs: 30000, message: '8 clients in the stream' })
  assert.equal((await act('clients', { clients: 9 })).status, 409, 'past the room')
  assert.equal((await act('stop', {})).status, 200)
  const done = await run
  assert.equal(done.code, 0, done.stderr)
  await waitFor(() => events.ended, { timeoutMs: 30000, message: 'the page\'s stream ended' })
  assert.deepEqual(JSON.parse(done.stdout).workers.list.map((/** @type {any} */ w) => w.clients.target).sort(), [4, 4])
})
