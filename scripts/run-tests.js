/**
 * Runs every test/**\/*.test.js with node's test runner. Node 20's `node --test DIR` would
 * also run every other .js file under test/ (helpers, fixtures), and it has no globs.
 */
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'

const files = readdirSync('test', { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.test.js') && !f.split(/[\\/]/).includes('fixtures'))
  .map((f) => `test/${f}`)
  .sort()
// TAP as before, then a last word on every skipped test (scripts/skip-summary.js).
const reporters = ['--test-reporter=tap', '--test-reporter-destination=stdout', '--test-reporter=./scripts/skip-summary.js', '--test-reporter-destination=stdout']
const args = ['--test', '--test-concurrency=1', ...reporters, ...process.argv.slice(2), ...files]
const { status, signal } = spawnSync(process.execPath, args, { stdio: 'inherit' })
process.exitCode = status ?? (signal ? 1 : 0)
