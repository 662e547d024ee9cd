/**
 * The dashboard server's routes against a small steering object of the test's own (the
 * command's real steering is checked by its own tests): the token rules (403 and the steering
 * never called), bodies that are not JSON objects (400), actions the command does not have
 * (404), an answer passed through with its status, actions as events of the stream, and a
 * bounded history.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createLiveStream, startDashboard, startDashboardServer } from '../../../results/dashboard/index.js'
import { thinSeconds } from '../../../results/report/charts/charts-live.js'
import { openEvents, request } from './sse-client.js'
import { waitFor } from '../../helpers/wait.js'

/** A steering of two actions that records what it was asked. */
function recordingSteering () {
  /** @type {any[]} */
  const calls = []
  /** @type {Set<(e: any) => void>} */
  const listeners = new Set()
  return {
    calls,
    actions: () => ['stop', 'clients'],
    /** @param {string} action @param {any} body @param {string} by */
    async act (action, body, by) {
      calls.push({ action, body, by })
      if (action === 'clients' && !(Number.isInteger(body.clients) && body.clients >= 0)) {
        return /** @type {const} */ ({ ok: false, status: 400, message: '--clients must be a whole number' })
      }
      const event = { type: 'action', at: Date.now(), action, value: body.clients, by, ok: true }
      for (const cb of listeners) cb(event)
      return /** @type {const} */ ({ ok: true, event })
    },
    /** @param {(e: any) => void} cb */
    onEvent (cb) { listeners.add(cb); return () => listeners.delete(cb) }
  }
}

test('actions: the token, the body and the command\'s actions are checked before the steering is asked', async (t) => {
  const dashboard = await startDashboard({ port: 0, host: '127.0.0.1', logFile: null, info: { command: 'run' } })
  t.after(() => dashboard.close())
  const steering = recordingSteering()
  dashboard.attachSteering(steering)
  const token = new URL(dashboard.url).searchParams.get('token')
  const at = (/** @type {string} */ p) => new URL(p, dashboard.server.viewUrl).href
  const auth = { authorization: `Bearer ${token}` }

  assert.equal((await request(at('/api/stop'), { method: 'POST', body: {} })).status, 403)
  assert.equal((await request(at('/api/stop'), { method: 'POST', body: {}, headers: { authorization: `Bearer ${token}x` } })).status, 403)
  assert.equal((await request(`${at('/api/clients')}?token=${token?.slice(1)}`, { method: 'POST', body: { clients: 3 } })).status, 403)
  assert.equal(steering.calls.length, 0, 'a refused request never reaches the steering')

  assert.equal((await request(at('/api/clients'), { method: 'POST', body: 'not json', headers: auth })).status, 400)
  assert.equal((await request(at('/api/clients'), { method: 'POST', body: [1], headers: auth })).status, 400)
  const unknown = await request(at('/api/stop-after-step'), { method: 'POST', body: {}, headers: auth })
  assert.equal(unknown.status, 404)
  assert.match(unknown.json.error, /stop, clients/)
  assert.equal((await request(at('/api/stop'), { headers: auth })).status, 405, 'an action is a POST')
  assert.equal(steering.calls.length, 0)

  const page = openEvents(t, at('/events'))
  const bad = await request(at('/api/clients'), { method: 'POST', body: { clients: -1 }, headers: auth })
  assert.deepEqual([bad.status, bad.json.error], [400, '--clients must be a whole number'])
  const ok = await request(`${at('/api/clients')}?token=${token}`, { method: 'POST', body: { clients: 40 } })
  assert.equal(ok.status, 200)
  assert.equal(ok.json.event.value, 40)
  assert.deepEqual(steering.calls.map((c) => [c.action, c.by]), [['clients', 'api'], ['clients', 'api']])
  await waitFor(() => page.events.some((e) => e.type === 'action' && e.value === 40), { timeoutMs: 30000, message: 'the action in the stream' })
  const state = await request(at('/api/state'))
  assert.deepEqual(state.json.actions, ['stop', 'clients'])
  assert.equal(state.json.timeline.length, 1)

  await dashboard.close({ result: '/tmp/x/result.json' })
  await waitFor(() => page.ended, { timeoutMs: 30000, message: 'the page\'s stream ended at close' })
})

test('a run without steering answers 409; a page without the token gets the page and the stream', async (t) => {
  const stream = createLiveStream()
  const server = await startDashboardServer({ stream, token: 'secret-token-123456' })
  t.after(() => server.close())
  const refused = await request(new URL('/api/stop?token=secret-token-123456', server.viewUrl).href, { method: 'POST' })
  assert.equal(refused.status, 409)
  assert.equal((await request(server.viewUrl)).status, 200)
  assert.equal((await request(new URL('/assets/chart.js', server.viewUrl).href)).status, 200)
  assert.equal((await request(new URL('/assets/charts-live.js', server.viewUrl).href)).status, 200)
})

test('history is bounded: seconds past the bound are thinned in the older half, the newest kept whole', () => {
  const stream = createLiveStream({ maxSeconds: 100 })
  for (let i = 0; i < 1000; i++) stream.push({ type: 'second', t: i * 1000 })
  const seconds = /** @type {any[]} */ (stream.history().filter((e) => e.type === 'second'))
  assert.ok(seconds.length <= 100, `${seconds.length} seconds kept`)
  assert.equal(seconds.at(-1)?.t, 999000)
  assert.equal(seconds[0].t, 0, 'the run\'s start is still there')
  assert.deepEqual(thinSeconds([1, 2, 3], 5), [1, 2, 3])
})
