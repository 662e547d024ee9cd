import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { ROOT } from '../../helpers/cli.js'
import { summarizeHealth } from '../../../lib/measure/process-sampler.js'
import { HEALTH_SUMMARY_FROM } from '../../../lib/schema/result-schema.js'

test('a process with every file descriptor taken still samples itself (the last memory figures), instead of dying of EMFILE', () => {
  // A child with a limit of 64 descriptors opens files until the kernel refuses, then samples.
  const script = `
    import { openSync } from 'node:fs'
    import { createProcessSampler } from './lib/measure/process-sampler.js'
    const sampler = createProcessSampler()
    const before = sampler.sample()
    let opened = 0
    for (let k = 0; k < 1000; k++) {
      try { openSync('/dev/null', 'r'); opened++ } catch (error) { if (error.code === 'EMFILE') break; throw error }
    }
    let direct = 'read'
    try { process.memoryUsage() } catch (error) { direct = error.code }
    const after = sampler.sample()
    console.log(JSON.stringify({ opened, direct, before: before.rssBytes, after: after.rssBytes, cpu: after.cpuPct }))
  `
  const run = spawnSync('bash', ['-c', `ulimit -n 64 && exec "${process.execPath}" --input-type=module -e "$0"`, script], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 30000
  })
  assert.equal(run.status, 0, run.stderr)
  const out = JSON.parse(run.stdout)
  assert.ok(out.opened > 0 && out.opened < 64, `descriptors exhausted after ${out.opened}`)
  assert.equal(out.direct, 'EMFILE', 'process.memoryUsage() itself throws here: the case this guards')
  assert.ok(out.after > 0 && out.after === out.before, 'the last RSS read is kept')
  assert.equal(typeof out.cpu, 'number')
})

test('a health summary: each field the largest of its sample field, saturatedSeconds the saturated samples (the fields listed once)', () => {
  /** @param {Partial<import('../../../lib/measure/process-sampler.js').ProcessSample>} over */
  const sample = (over) => ({ t: 0, loopDelayP50Ms: 0, loopDelayP99Ms: 1, loopDelayMaxMs: 0, elu: 0.1, cpuPct: 5, rssBytes: 100, heapUsedBytes: 0, ...over })
  const summary = summarizeHealth([sample({ cpuPct: 70, rssBytes: 300 }), sample({ elu: 0.95, loopDelayP99Ms: 12 }), sample({ loopDelayP99Ms: 60 })])
  assert.deepEqual(summary, { loopDelayP99MaxMs: 60, cpuPctMax: 70, eluMax: 0.95, rssMaxBytes: 300, saturatedSeconds: 2 })
  assert.deepEqual(Object.keys(summary), Object.keys(HEALTH_SUMMARY_FROM))
  assert.deepEqual(summarizeHealth([]), { loopDelayP99MaxMs: 0, cpuPctMax: 0, eluMax: 0, rssMaxBytes: 0, saturatedSeconds: 0 })
})
