/**
 * Runs every test/**\/*.test.js with node's test runner, several files at once (a pool of
 * IOSWARM_TEST_JOBS runners, two per core up to 4 by default: most slow files wait on processes
 * of their own — interop peers, the CLI binary, pm2, network namespaces. On two cores, three
 * left the CPU 18 % idle over a whole run, four 10 %, and ended it 15 % sooner, every test
 * passing; the whole suite has passed three times in a row at three beside two busy loops, more
 * load than a fourth file adds). The slowest kinds of files start first so the pool ends
 * together. Each file's TAP output is held and printed whole when it ends, so files never
 * interleave; the end lists every skipped test with its reason, the slowest files, every failed
 * test with the first lines of its error, and the totals.
 * (Node 20's `node --test DIR` would also run every other .js file under test/, and has no globs.)
 *
 * With --checks, the static checks (scripts/checks.js: lint and the type check) run beside the
 * first test files instead of before them (`npm test`): most files wait on processes and timers
 * more than they compute, so the checks' two busy processes, at a lower priority, fit in beside
 * them, and a failed check fails the run as a failed file does.
 *
 *   node scripts/run-tests.js [--checks] [files…]   (no files: all of them)
 */
import { spawn } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { availableParallelism, setPriority } from 'node:os'

const given = process.argv.slice(2).filter((a) => !a.startsWith('-'))
const withChecks = process.argv.includes('--checks')
const extra = process.argv.slice(2).filter((a) => a.startsWith('-') && a !== '--checks')
const files = given.length > 0
  ? given
  : readdirSync('test', { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.test.js') && !f.split(/[\\/]/).includes('fixtures'))
    .map((f) => `test/${f.split('\\').join('/')}`)
    .sort()

// Kinds of files that take longest (tens of seconds each: peers, whole runs, restarts), started
// first; the many short unit files then fill the gaps.
const SLOW_FIRST = [
  'test/interop/', 'test/faults/', 'test/runner/', 'test/peers/', 'test/infra/netns', 'test/package/',
  'test/cli/', 'test/examples/', 'test/security/', 'test/results/metrics/', 'test/simulator/'
]
const rank = (/** @type {string} */ f) => {
  const k = SLOW_FIRST.findIndex((dir) => f.startsWith(dir))
  return k === -1 ? SLOW_FIRST.length : k
}
const queue = [...files].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b))

/**
 * The longest a test file may run (IOSWARM_TEST_TIMEOUT_MS, 10 minutes by default; the slowest
 * file takes about two): node's --test-timeout, which stops a file that waits for something
 * that never comes and fails it with its name, instead of holding the whole run until CI's own
 * bound.
 */
const timeoutEnv = Number(process.env.IOSWARM_TEST_TIMEOUT_MS)
const fileTimeoutMs = Number.isInteger(timeoutEnv) && timeoutEnv > 0 ? timeoutEnv : 600000

const jobsEnv = Number(process.env.IOSWARM_TEST_JOBS)
const jobs = Number.isInteger(jobsEnv) && jobsEnv > 0 ? jobsEnv : Math.min(4, 2 * availableParallelism())
// TAP, then a last word on every skipped test and the totals (scripts/skip-summary.js).
const reporters = [
  '--test-reporter=tap', '--test-reporter-destination=stdout',
  '--test-reporter=./scripts/skip-summary.js', '--test-reporter-destination=stdout'
]

/** @type {Record<string, number>} */
const totals = { passed: 0, failed: 0, skipped: 0 }
/** @type {string[]} */
const skips = []
/** @type {string[]} */
const failedFiles = []
/** @type {string[]} */
const failures = []
/** @type {{ file: string, ms: number }[]} */
const times = []

/**
 * Runs one test file; prints its output whole when it ends.
 * @param {string} file
 * @returns {Promise<void>}
 */
function runFile (file) {
  const started = performance.now()
  const args = ['--test', '--test-concurrency=1', `--test-timeout=${fileTimeoutMs}`, ...reporters, ...extra, file]
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { out += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { out += d })
  return new Promise((resolve) => child.on('close', (code, signal) => {
    const ms = performance.now() - started
    times.push({ file, ms })
    const last = /^summary: (\d+) passed, (\d+) failed, (\d+) skipped$/m.exec(out)
    if (last) {
      totals.passed += Number(last[1])
      totals.failed += Number(last[2])
      totals.skipped += Number(last[3])
    }
    // A file that died before its summary (a crash, a signal) is a failure too.
    if (code !== 0 || signal !== null || !last) {
      failedFiles.push(file)
      if (!last) totals.failed++
    }
    for (const line of out.split('\n')) {
      if (/^# (SKIPPED|TODO): /.test(line)) skips.push(line)
      else if (line.startsWith('# FAILED: ')) failures.push(line)
    }
    process.stdout.write(`\n# file: ${file} (${(ms / 1000).toFixed(1)} s${code !== 0 ? `, exit ${code ?? signal}` : ''})\n${out}`)
    resolve()
  }))
}

/**
 * The static checks (lint, type check), their output held and printed whole when they end.
 * @returns {Promise<boolean>} whether they passed
 */
function runChecks () {
  const child = spawn(process.execPath, ['scripts/checks.js', 'lint', 'typecheck'], { stdio: ['ignore', 'pipe', 'pipe'] })
  // At a lower priority (lint and tsc, started after this, inherit it): they take the CPU the
  // test files leave, so the timing-sensitive files beside them are not slowed.
  if (child.pid !== undefined) {
    try {
      setPriority(child.pid, 10)
    } catch {}
  }
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { out += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { out += d })
  return new Promise((resolve) => child.on('close', (code, signal) => {
    process.stdout.write(`\n# checks (lint, type check)${code === 0 ? '' : `, exit ${code ?? signal}`}\n${out}`)
    resolve(code === 0 && signal === null)
  }))
}

const wallStart = performance.now()
const checks = withChecks ? runChecks() : Promise.resolve(true)
await Promise.all(Array.from({ length: Math.min(jobs, queue.length) }, async () => {
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) await runFile(file)
}))
if (!await checks) failedFiles.unshift('the checks (lint, type check)')

const slowest = times.sort((a, b) => b.ms - a.ms).slice(0, 8).map((t) => `#   ${(t.ms / 1000).toFixed(1).padStart(6)} s  ${t.file}`)
const wallS = ((performance.now() - wallStart) / 1000).toFixed(0)
process.stdout.write(`\n# ${files.length} files, ${jobs} at a time, ${wallS} s; the slowest:\n${slowest.join('\n')}\n`)
const skipped = `\n# ${skips.length} test${skips.length === 1 ? '' : 's'} skipped or todo:\n${skips.join('\n')}\n`
process.stdout.write(skips.length === 0 ? '\n# no test was skipped\n' : skipped)
// Each failed test again with its error's first lines, so the end of the output says why.
if (failures.length > 0) process.stdout.write(`\n${failures.join('\n')}\n`)
if (failedFiles.length > 0) process.stdout.write(`\n# FAILED in: ${failedFiles.join(', ')}\n`)
process.stdout.write(`\ntotal: ${totals.passed} passed, ${totals.failed} failed, ${totals.skipped} skipped\n`)
process.exitCode = failedFiles.length > 0 || totals.failed > 0 ? 1 : 0
