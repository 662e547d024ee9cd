/**
 * The steering object on its own (lib/steering.js): values checked by the flags' own parsers,
 * every action an event, done or refused, one at a time, and the stop its signal.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createSteering, formatActionLine, steeredHooks } from '../../lib/steering.js'
import { parseRate } from '../../lib/values/option-values.js'

test('a bad value is refused with its flag\'s own message (400) and reaches no handler', async () => {
  const steering = createSteering({ command: 'run', now: () => 1000 })
  /** @type {unknown[]} */
  const done = []
  steering.handle('emit-rate', (value) => { done.push(value) })
  steering.handle('clients', (value) => { done.push(value) })
  const flagMessage = (() => { try { parseRate('fast', '--emit-rate') } catch (error) { return /** @type {Error} */ (error).message } })()
  const rate = await steering.act('emit-rate', { rate: 'fast' }, 'api')
  assert.deepEqual(rate, {
    ok: false,
    status: 400,
    message: flagMessage,
    event: { type: 'action', at: 1000, action: 'emit-rate', value: 'fast', by: 'api', ok: false, message: flagMessage }
  })
  const clients = await steering.act('clients', { clients: -3 }, 'dashboard')
  assert.equal(clients.ok, false)
  assert.equal(!clients.ok && clients.status, 400)
  assert.match(!clients.ok ? clients.message : '', /--clients must be a whole number from 1 to/)
  const missing = await steering.act('clients', {}, 'api')
  assert.match(!missing.ok ? missing.message : '', /--clients: missing/)
  assert.deepEqual(done, [], 'no handler ran')
  assert.equal(steering.timeline().length, 3, 'refusals are in the timeline too')
})

test('a good value reaches the handler, checked: a rate as its interval, clients as a number', async () => {
  const steering = createSteering({ command: 'simulate' })
  /** @type {unknown[][]} */
  const seen = []
  steering.handle('emit-rate', (value, checked) => { seen.push([value, checked.emitIntervalMs]) })
  steering.handle('clients', (value) => { seen.push([value]); return 'grown' })
  /** @type {import('../../lib/steering.js').SteeringAction[]} */
  const events = []
  const unlisten = steering.onEvent((e) => events.push(e))
  const rate = await steering.act('emit-rate', { rate: ' 5/s ' }, 'api')
  const clients = await steering.act('clients', { clients: '12' }, 'dashboard')
  unlisten()
  assert.deepEqual(seen, [['5/s', 200], [12]])
  assert.equal(rate.ok && rate.event.value, '5/s')
  assert.equal(clients.ok && clients.event.message, 'grown')
  assert.deepEqual(events.map((e) => [e.action, e.value, e.by, e.ok]), [['emit-rate', '5/s', 'api', true], ['clients', 12, 'dashboard', true]])
})

test('not possible now: 409 with the reason; not offered by the command: 404', async () => {
  const steering = createSteering({ command: 'run' })
  const early = await steering.act('clients', { clients: 4 }, 'api')
  assert.equal(!early.ok && early.status, 409)
  assert.match(!early.ok ? early.message : '', /not running/)
  const release = steering.handle('clients', () => { throw new Error('room for 3 clients only') })
  const refused = await steering.act('clients', { clients: 4 }, 'api')
  assert.deepEqual(!refused.ok && [refused.status, refused.message], [409, 'room for 3 clients only'])
  release()
  const step = await steering.act('stop-after-step', {}, 'api')
  assert.equal(!step.ok && step.status, 404)
  assert.deepEqual(createSteering({ command: 'capacity' }).actions(), ['stop', 'stop-after-step'])
})

test('stop aborts the signal once; a second stop is refused; actions run one at a time', async () => {
  const steering = createSteering({ command: 'run' })
  /** @type {string[]} */
  const order = []
  steering.handle('clients', async (value) => {
    order.push(`start ${value}`)
    await new Promise((resolve) => setImmediate(resolve))
    order.push(`end ${value}`)
  })
  const both = await Promise.all([steering.act('clients', { clients: 2 }, 'api'), steering.act('clients', { clients: 3 }, 'api')])
  assert.deepEqual(order, ['start 2', 'end 2', 'start 3', 'end 3'])
  assert.ok(both.every((a) => a.ok))
  const hooks = steeredHooks(/** @type {{ steering: typeof steering, signal?: AbortSignal }} */ ({ steering }))
  assert.equal(hooks.signal?.aborted, false)
  const stop = await steering.act('stop', {}, 'signal')
  assert.ok(stop.ok)
  assert.equal(steering.signal.aborted, true)
  assert.equal(hooks.signal?.aborted, true, 'the hooks\' signal follows the stop')
  const again = await steering.act('stop', {}, 'api')
  assert.deepEqual(!again.ok && [again.status, again.message], [409, 'the run is already stopping'])
  assert.match(formatActionLine(stop.event), /^action \d\d:\d\d:\d\d stop by signal: done$/)
  assert.match(formatActionLine(/** @type {any} */ (again).event), /stop by api: refused: the run is already stopping$/)
})
