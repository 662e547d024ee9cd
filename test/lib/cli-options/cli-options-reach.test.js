/**
 * One simulator option added to the table, in one place only, reaches every process that
 * runs simulators: a local simulator of `run` (over IPC), a `--workers` child, the pm2
 * ecosystem's environment (from `fleet up`, through the pm2 entry) and the Kubernetes
 * ConfigMap. Proved here with a throwaway option that exists only for this test.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { OPTIONS, foreignEnvNames } from '../../../lib/cli-options/index.js'
import { SIMULATOR_OPTIONS } from '../../../lib/cli-options/simulator-rows.js'
import { simulateConfigMap } from '../../../infra/generate.js'
import { upEnv } from '../../../infra/cli.js'
import { simulatorOptions } from '../../../runner/distribution.js'
import { normalizeRunOptions } from '../../../runner/run-options.js'
import { forkSimulator, runWorkers } from '../../../simulator/index.js'
import { ROOT } from '../../helpers/cli.js'
import { startTestServer } from '../../helpers/swarm.js'

/** @type {import('../../../lib/cli-options/index.js').OptionDef} */
const THROWAWAY = {
  name: 'throwaway-probe',
  type: 'string',
  commands: ['simulate'],
  passOn: true,
  group: 'Advanced',
  describe: 'exists only in this test',
  parse: (v) => (v === undefined ? null : `parsed:${v}`)
}

test('a throwaway option added to the table reaches run\'s simulators, workers, pm2 and Kubernetes', async (t) => {
  // A row of simulate.js is in both the full table and the simulator's own (test/lib/cli-options/cli-options-simulator.test.js).
  for (const table of [OPTIONS, SIMULATOR_OPTIONS]) {
    table.push(/** @type {any} */ (THROWAWAY))
    t.after(() => { table.splice(table.indexOf(/** @type {any} */ (THROWAWAY)), 1) })
  }
  const server = await startTestServer(t, { pingIntervalMs: 200 })

  // ioswarm run: validated up front, handed to each local simulator over IPC.
  const run = normalizeRunOptions({ simulators: 1, clients: 2, throwawayProbe: 'x7' })
  const options = simulatorOptions({ options: run, url: server.url, rampMs: 0 }, run.distributions[0], 0)
  assert.equal(/** @type {any} */ (options).throwawayProbe, 'parsed:x7')
  const child = forkSimulator({ ...options, durationMs: 500 })
  t.after(() => child.stop(2000))
  const { result } = await child.outcome
  assert.equal(/** @type {any} */ (result?.options).throwawayProbe, 'parsed:x7', 'the run\'s simulator child got it')

  // simulate --workers: each worker child gets it, and the merged result says so.
  const merged = await runWorkers({ ...options, durationMs: 500, id: 'reach' }, 2)
  assert.equal(/** @type {any} */ (merged.options).throwawayProbe, 'parsed:x7')
  assert.equal(merged.workers?.list.length, 2)

  // fleet up → the ecosystem's environment → the pm2 entry keeps it for simulate.
  const env = upEnv({ url: 'http://10.0.0.5:3000', redis: 'redis://10.0.0.5:6379', run: 'r1', throwawayProbe: 'x7' })
  assert.equal(env.IOSWARM_THROWAWAY_PROBE, 'x7')
  const script = 'process.stdout.write(JSON.stringify(require("./infra/ecosystem.config.cjs").apps[0].env))'
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('IOSWARM_')))
  const appEnv = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, env: { ...clean, ...env }, timeout: 10000 }).toString())
  assert.equal(appEnv.IOSWARM_THROWAWAY_PROBE, 'x7', 'pm2 gives it to the simulator app')
  assert.ok(!foreignEnvNames('simulate', appEnv).includes('IOSWARM_THROWAWAY_PROBE'), 'the pm2 entry keeps it for simulate')
  assert.ok(foreignEnvNames('simulate', { IOSWARM_SIMULATORS: '2' }).includes('IOSWARM_SIMULATORS'), 'and drops what is not a simulate option')

  // Kubernetes: the simulators read the generated ConfigMap whole.
  assert.match(simulateConfigMap(), /^ {2}# IOSWARM_THROWAWAY_PROBE: ""$/m)
})
