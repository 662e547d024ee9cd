import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { checkRunPreflight, referenceServerFds } from '../../runner/preflight.js'
import { checkStepLimits } from '../../runner/capacity/limits.js'
import { normalizeRunOptions } from '../../runner/run-options.js'
import { ROOT } from '../helpers/cli.js'

const roomy = { fdSoft: 20000, fdHard: 20000, ports: 28232, portRange: '32768 60999', freeBytes: 16 * 2 ** 30 }

test('the runner adds up its local simulators and the reference server', () => {
  assert.deepEqual(checkRunPreflight(normalizeRunOptions({ distributions: '2x500,4x250', rounds: '1x100' }), roomy), [])
  // 4 × 4,000 fits each simulator process (4,064 fds) but not one reference server (16,064 > 15,000).
  const options = normalizeRunOptions({ simulators: 4, clientsPerSimulator: 4000, rounds: '1x100', engine: 'lean' })
  assert.throws(() => checkRunPreflight(options, { ...roomy, fdSoft: 15000 }), (error) => {
    assert.equal(/** @type {any} */ (error).code, 'IOSWARM_ERR_LIMIT')
    assert.match(
      String(error),
      /distribution 4x4000: reference server file descriptors \(ulimit -n\): needs 16064 for 16000 clients in one process, limit 15000/
    )
    assert.match(String(error), /--cluster K/)
    return true
  })
  // With --target the server is someone else's: only the simulators count.
  assert.deepEqual(
    checkRunPreflight(
      normalizeRunOptions({ simulators: 4, clientsPerSimulator: 4000, rounds: '1x100', engine: 'lean', target: 'http://127.0.0.1:9', token: 't' }),
      { ...roomy, fdSoft: 15000 }
    ),
    []
  )
  // Memory: the sum of all simulators plus the server against what is free.
  assert.throws(
    () => checkRunPreflight(options, { ...roomy, freeBytes: 500 * 2 ** 20 }),
    /distribution 4x4000: memory \(available now\): needs 1320 MiB \(simulators 695 MiB \+ reference server 625 MiB\), limit 500 MiB/
  )
  const close = checkRunPreflight(options, { ...roomy, fdSoft: 18000 })
  assert.equal(close.length, 1)
  assert.match(close[0], /reference server file descriptors .* \(over 80 %\)/)
})

test('the reference server\'s descriptors are checked one way by a run and by a capacity step: the same need, sentence and advice', () => {
  const load = { clients: 16000, pollingShare: 0.5, limits: { ...roomy, fdSoft: 15000 } }
  const [check] = referenceServerFds({ target: null }, load)
  assert.equal(check.need, 24064, 'a polling client holds two sockets; 64 to spare')
  assert.equal(check.text, 'reference server file descriptors (ulimit -n): needs 24064 for 16000 clients in one process, limit 15000')
  assert.deepEqual(referenceServerFds({ target: 'http://127.0.0.1:9' }, load), [])
  const limits = { ...roomy, fdSoft: 15000, fdHard: 15000 }
  const options = normalizeRunOptions({ simulators: 4, clientsPerSimulator: 4000, rounds: '1x100', engine: 'lean' })
  const sentence = (/** @type {() => unknown} */ check) => {
    try { check() } catch (error) { return /reference server file descriptors.*/.exec(String(error))?.[0] }
    return 'no error'
  }
  const run = sentence(() => checkRunPreflight(options, limits))
  const step = sentence(() =>
    checkStepLimits({ options: { transport: 'websocket', engine: 'lean', simulators: 4, target: null }, clients: 16000, current: 0, limits })
  )
  assert.match(run ?? '', /needs 16064 for 16000 clients .*--cluster K --host 0\.0\.0\.0/)
  assert.equal(step, run)
})

test('ioswarm run stops before starting anything when this ' +
  'shell\'s ulimit -n cannot hold the reference server', { skip: process.platform !== 'linux' && 'needs bash and ulimit' }, () => {
  const run = spawnSync('bash', [
    '-c', `ulimit -n 300 && exec "${process.execPath}" bin/ioswarm.js run --distributions 4x100 --rounds 1x100 --out "$TMPDIR/never"`
  ],
  { cwd: ROOT, encoding: 'utf8', timeout: 30000, env: { ...process.env, TMPDIR: process.env.TMPDIR ?? '/tmp' } })
  assert.equal(run.status, 2, run.stderr)
  assert.match(run.stderr, /distribution 4x100: reference server file descriptors \(ulimit -n\): needs 464 for 400 clients in one process, limit 300/)
  assert.doesNotMatch(run.stderr, /reference server http/, 'nothing started')
})
