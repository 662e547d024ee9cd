import { test } from 'node:test'
import assert from 'node:assert/strict'
import { simulatorArgs } from '../../runner/distribution.js'
import { normalizeRunOptions } from '../../runner/options.js'

/** @param {Record<string, unknown>} input */
function argsFor (input) {
  const options = normalizeRunOptions({ simulators: 1, clients: 50, ...input })
  return simulatorArgs({ options, runId: 'r1', url: 'http://127.0.0.1:3000', rampMs: 500 }, options.distributions[0], 0)
}

test('local simulators get the run\'s simulate options as flags, --ws-client only for the lean engine', () => {
  assert.deepEqual(argsFor({ engine: 'lean', wsClient: 'builtin' }), [
    'simulate', '--quiet', '--run', 'r1', '--id', '1x50-sim1', '--clients', '50', '--url', 'http://127.0.0.1:3000',
    '--transport', 'websocket', '--engine', 'lean', '--ramp', '500ms', '--message-timeout', '10000ms',
    '--event', 'broadcast', '--parser', 'json', '--max-payload', '1000000', '--ws-client', 'builtin', '--ipc'
  ])
  const lean = argsFor({ engine: 'lean' })
  assert.deepEqual(lean.slice(lean.indexOf('--ws-client'), lean.indexOf('--ws-client') + 2), ['--ws-client', 'ws'])
  assert.ok(!argsFor({ engine: 'sio' }).includes('--ws-client'))
})
