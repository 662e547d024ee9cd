import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { copyFileSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const FIXTURES = join(ROOT, 'test/fixtures')

/**
 * Runs the real CLI and collects its exit code and output.
 * @param {string[]} args
 * @returns {Promise<{ code: number | null, stdout: string, stderr: string }>}
 */
function ioswarm (args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['bin/ioswarm.js', ...args], { cwd: ROOT, env: { ...process.env, DEBUG: '' } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => { stdout += d })
    child.stderr.on('data', (d) => { stderr += d })
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

/** A scratch folder with a copy of the fixtures, removed after the test. */
function scratch (/** @type {import('node:test').TestContext} */ t) {
  const dir = mkdtempSync(join(tmpdir(), 'ioswarm-report-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  for (const name of ['run-small.json', 'run-sparse.json']) copyFileSync(join(FIXTURES, name), join(dir, name))
  return dir
}

test('report writes report.html next to the result and prints the summary', async (t) => {
  const dir = scratch(t)
  const { code, stdout, stderr } = await ioswarm(['report', join(dir, 'run-small.json')])
  assert.equal(code, 0, stderr)
  assert.equal(stdout, '')
  assert.match(stderr, /distribution 2x500: 2 simulators x 500 clients/)
  assert.match(stderr, /stale simulators: 4x250-sim-4/)
  assert.match(stderr, new RegExp(`report written to ${join(dir, 'report.html')}`))
  assert.match(readFileSync(join(dir, 'report.html'), 'utf8'), /<canvas data-chart="d2-health-cpu"/)
})

test('a failed --assert exits 3 and prints the verdict; --json prints it to stdout', async (t) => {
  const dir = scratch(t)
  const result = await ioswarm(['report', join(dir, 'run-small.json'), '--assert', 'p99<1ms', '--assert', 'missing<=1', '--json', '--out', join(dir, 'r.html')])
  assert.equal(result.code, 3, result.stderr)
  assert.match(result.stderr, /^FAIL {2}p99<1ms +p99 24\.6ms \(round 2, 4x250\)$/m)
  assert.match(result.stderr, /^pass {2}missing<=1 /m)
  assert.match(result.stderr, /thresholds: 1 of 2 FAILED/)
  const json = JSON.parse(result.stdout)
  assert.equal(json.report, join(dir, 'r.html'))
  assert.deepEqual(json.runs[0].thresholds.map((/** @type {{ ok: boolean }} */ v) => v.ok), [false, true])
  assert.equal(json.runs[0].summary.distributions.length, 2)
  assert.match(readFileSync(join(dir, 'r.html'), 'utf8'), /verdict fail">FAIL: 1 of 2 thresholds/)

  const passed = await ioswarm(['report', join(dir, 'run-small.json'), '--assert', 'p99<1s', '--out', join(dir, 'r.html')])
  assert.equal(passed.code, 0, passed.stderr)
  assert.match(passed.stderr, /thresholds: all 1 passed/)
})

test('usage errors exit 2 and say what is wrong', async (t) => {
  const dir = scratch(t)
  const small = join(dir, 'run-small.json')
  const badAssert = await ioswarm(['report', small, '--assert', 'p99<<1ms'])
  assert.equal(badAssert.code, 2)
  assert.match(badAssert.stderr, /^ioswarm: --assert "p99<<1ms" is not METRIC OP VALUE.*Metrics: p50/)
  assert.equal(existsSync(join(dir, 'report.html')), false, 'nothing written on a usage error')
  const missing = await ioswarm(['report', join(dir, 'nope.json')])
  assert.equal(missing.code, 2)
  assert.match(missing.stderr, /cannot read .*nope\.json: no such file/)
  const two = await ioswarm(['report', small, small])
  assert.equal(two.code, 2)
  assert.match(two.stderr, /--compare is needed to report on 2 result files/)
  const noDir = await ioswarm(['report', small, '--out', join(dir, 'no/such/dir.html')])
  assert.equal(noDir.code, 2)
  assert.match(noDir.stderr, /--out cannot be written: ENOENT/)
})

test('--compare writes compare.html with a series per distribution of each file', async (t) => {
  const dir = scratch(t)
  const { code, stderr } = await ioswarm(['report', join(dir, 'run-small.json'), join(dir, 'run-sparse.json'), '--compare', '--label', 'a', '--label', 'b'])
  assert.equal(code, 0, stderr)
  const html = readFileSync(join(dir, 'compare.html'), 'utf8')
  assert.match(html, /<canvas data-chart="compare-avg"/)
  for (const series of ['a 2x500', 'a 4x250', 'b 2x500', 'b 4x250']) assert.ok(html.includes(`<td>${series}</td>`), series)
})

test('--help exits 0 and points to the threshold metrics, which --help-all lists', async () => {
  const { code, stdout } = await ioswarm(['report', '--help'])
  assert.equal(code, 0)
  assert.match(stdout, /ioswarm report <results\.\.>/)
  assert.match(stdout, /every metric in\s+docs\/options\.md#thresholds/)
  const all = await ioswarm(['report', '--help-all'])
  assert.equal(all.code, 0)
  assert.match(all.stdout, /sim\.loopDelayP99 +worst simulator/)
})
