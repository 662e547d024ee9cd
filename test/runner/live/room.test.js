/**
 * The room `run --dashboard` reserves for the page to grow the swarm without --max-clients
 * (runner/live/room.js): twice the swarm where this host's limits hold it, less where they do
 * not, none to grow into where even that does not fit; none reserved when the run sets its own.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { dashboardRoom } from '../../../runner/live/room.js'
import { normalizeRunOptions } from '../../../runner/run-options.js'

const roomy = { fdSoft: 1_000_000, fdHard: 1_000_000, ports: 28232, portRange: '32768 60999', freeBytes: 16 * 2 ** 30 }
/** The done-when run: 2 simulators × 1000 clients, no rounds, their own emits (a target of its own: the fds are the simulators'). */
const base = {
  target: 'http://127.0.0.1:3000',
  simulators: 2,
  clientsPerSimulator: 1000,
  rounds: 'none',
  hold: '5m',
  emit: 'chat {"text":"hi"}',
  dashboard: ''
}

test('twice the swarm where the host holds it, less where its file descriptors do not, the swarm itself at worst', () => {
  const options = normalizeRunOptions(base)
  assert.deepEqual(dashboardRoom(options, roomy), { room: 4000, clients: 2000 })
  const per = (/** @type {number} */ fds) => dashboardRoom(options, { ...roomy, fdSoft: fds, fdHard: fds })
  const tight = per(1700)
  assert.ok(tight && tight.room > 2000 && tight.room < 4000, `a room between: ${JSON.stringify(tight)}`)
  assert.deepEqual(per(1100), { room: 2000, clients: 2000 }, 'no room to grow into, said as such')
})

test('none reserved when the run sets its own: --max-clients, --phases', () => {
  assert.equal(dashboardRoom(normalizeRunOptions({ ...base, maxClients: 3000 }), roomy), null)
  const { clientsPerSimulator, hold, ...phased } = base
  assert.equal(dashboardRoom(normalizeRunOptions({ ...phased, phases: 'ramp 10s to 100, hold 10s' }), roomy), null)
})
