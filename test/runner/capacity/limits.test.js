import { test } from 'node:test'
import assert from 'node:assert/strict'
import { checkStepLimits } from '../../../runner/capacity/limits.js'

const ROOMY = { fdSoft: 65536, fdHard: 65536, ports: 28232, portRange: '32768 60999', freeBytes: 16 * 2 ** 30 }
const options = { transport: 'websocket', engine: 'lean', simulators: 2, target: null }

test('a step that fits: descriptors per simulator (each holds its share), no warning', () => {
  const fit = checkStepLimits({ options, clients: 8000, current: 4000, limits: ROOMY })
  assert.deepEqual(fit, { fdsPerSimulator: 4000 + 64, fdLimit: 65536, warnings: [] })
})

test('a step past a limit names it and how to raise it: descriptors per simulator, the reference server\'s, memory for the added clients', () => {
  assert.throws(
    () => checkStepLimits({ options, clients: 30000, current: 0, limits: { ...ROOMY, fdSoft: 10000 } }),
    /file descriptors per process \(ulimit -n\): needs 15064, limit 10000; raise it with `ulimit -n 15064`/
  )
  assert.throws(
    () => checkStepLimits({ options: { ...options, simulators: 8 }, clients: 25000, current: 0, limits: { ...ROOMY, fdSoft: 20000 } }),
    /reference server file descriptors \(ulimit -n\): needs 25064 for 25000 clients in one process, limit 20000/
  )
  assert.doesNotThrow(
    () =>
      checkStepLimits({
        options: { ...options, simulators: 8, target: 'http://10.0.0.7:3000' },
        clients: 25000,
        current: 0,
        limits: { ...ROOMY, fdSoft: 20000 }
      }),
    'a target\'s descriptors are its own business'
  )
  assert.throws(
    () => checkStepLimits({ options, clients: 20000, current: 0, limits: { ...ROOMY, freeBytes: 100 * 2 ** 20 } }),
    /memory \(available now\) for the 20000 clients this step adds/
  )
  assert.doesNotThrow(
    () => checkStepLimits({ options, clients: 20000, current: 19000, limits: { ...ROOMY, freeBytes: 100 * 2 ** 20 } }),
    'the connected ones hold their memory already'
  )
  const warned = checkStepLimits({ options: { ...options, target: 'http://10.0.0.7:3000' }, clients: 16000, current: 0, limits: { ...ROOMY, fdSoft: 9000 } })
  assert.match(warned.warnings[0], /file descriptors per process .* \(over 80 %\)/)
})
