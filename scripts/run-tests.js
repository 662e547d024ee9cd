/**
 * Runs every test/**\/*.test.js with node's test runner, in two groups at once, each one file
 * at a time: the tests that mostly wait on processes of their own (interop peers, `npm pack`,
 * the CLI binary, pm2, network namespaces) beside everything else. The second group's output is held
 * and printed after the first's, so the two never interleave; the last line adds them up.
 * (Node 20's `node --test DIR` would also run every other .js file under test/, and has no globs.)
 */
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'

const files = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.js') && !f.split(/[\\/]/).includes('fixtures'))
  .map((f) => `test/${f}`)
  .sort()
// Files that mostly wait on processes of their own (peers, the CLI binary, pm2, namespaces):
// they run beside the rest, which keeps the whole suite well under ten minutes on two cores.
const APART = ['test/interop/', 'test/peers/', 'test/package/', 'test/infra/', 'test/cli/', 'test/security/', 'test/results/metrics/', 'test/runner/restart.test.js']
const apart = (/** @type {string} */ f) => APART.some((dir) => f.startsWith(dir))
// TAP, then a last word on every skipped test and the totals (scripts/skip-summary.js).
const reporters = ['--test-reporter=tap', '--test-reporter-destination=stdout', '--test-reporter=./scripts/skip-summary.js', '--test-reporter-destination=stdout']
const extra = process.argv.slice(2)

/**
 * @param {string[]} group
 * @param {boolean} live print as it comes (else held until the end)
 * @returns {Promise<{ code: number, out: string }>}
 */
function run (group, live) {
  if (group.length === 0) return Promise.resolve({ code: 0, out: '' })
  const child = spawn(process.execPath, ['--test', '--test-concurrency=1', ...reporters, ...extra, ...group], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (d) => {
    out += d
    if (live) process.stdout.write(d)
  })
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code: code ?? (signal ? 1 : 0), out })))
}

const [main, interop] = await Promise.all([run(files.filter((f) => !apart(f)), true), run(files.filter(apart), false)])
process.stdout.write(interop.out)
/** @type {Record<string, number>} */
const totals = { passed: 0, failed: 0, skipped: 0 }
for (const { out } of [main, interop]) {
  const last = /^summary: (\d+) passed, (\d+) failed, (\d+) skipped$/m.exec(out)
  if (last) {
    totals.passed += Number(last[1])
    totals.failed += Number(last[2])
    totals.skipped += Number(last[3])
  }
}
process.stdout.write(`\ntotal: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`)
process.exitCode = main.code || interop.code
