import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync, spawnSync } from 'node:child_process'
import { ROOT } from '../helpers/cli.js'

test('npm test ends with one line per skipped or todo test and its reason, then the totals', () => {
  // Without NODE_TEST_CONTEXT: else the inner runner reports to this one instead of printing.
  const { NODE_TEST_CONTEXT, ...env } = process.env
  const out = execFileSync(process.execPath, ['--test', '--test-reporter=tap', '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/skip-summary.js', '--test-reporter-destination=stdout', 'test/fixtures/skips.js'],
  { cwd: ROOT, env, encoding: 'utf8', timeout: 30000 })
  const tail = out.trimEnd().split('\n').slice(-4)
  assert.deepEqual(tail, [
    '# 2 tests skipped or todo:',
    '# SKIPPED: needs a thing (test/fixtures/skips.js): SKIPPED: no thing here (apt-get install thing)',
    '# TODO: later (test/fixtures/skips.js): not written yet',
    'summary: 1 passed, 0 failed, 1 skipped'
  ])
})

test('a failed test gets a line at the end with its error\'s first lines; a suite of failed subtests none of its own', () => {
  const { NODE_TEST_CONTEXT, ...env } = process.env
  const run = spawnSync(process.execPath, ['--test', '--test-reporter=./scripts/skip-summary.js', 'test/fixtures/fails.js'],
    { cwd: ROOT, env, encoding: 'utf8', timeout: 30000 })
  assert.equal(run.status, 1)
  assert.deepEqual(run.stdout.trimEnd().split('\n').slice(-5), [
    '# no test was skipped',
    '',
    '# FAILED: breaks (test/fixtures/fails.js): Expected values to be strictly equal: | 2 !== 3',
    '# FAILED: also breaks (test/fixtures/fails.js): first line | second line',
    'summary: 0 passed, 2 failed, 0 skipped'
  ])
})

test('the test pool (scripts/run-tests.js) runs files side by side, prints each whole, and ends with the skips, the failures and the totals', () => {
  const { NODE_TEST_CONTEXT, ...env } = process.env
  const run = spawnSync(process.execPath, ['scripts/run-tests.js', 'test/fixtures/skips.js', 'test/fixtures/fails.js'],
    { cwd: ROOT, env: { ...env, IOSWARM_TEST_JOBS: '2' }, encoding: 'utf8', timeout: 60000 })
  assert.equal(run.status, 1, 'a failing file fails the pool')
  assert.match(run.stdout, /^# file: test\/fixtures\/skips\.js \([\d.]+ s\)$/m)
  assert.match(run.stdout, /^# file: test\/fixtures\/fails\.js \([\d.]+ s, exit 1\)$/m)
  assert.deepEqual(run.stdout.trimEnd().split('\n').slice(-10), [
    '# 2 tests skipped or todo:',
    '# SKIPPED: needs a thing (test/fixtures/skips.js): SKIPPED: no thing here (apt-get install thing)',
    '# TODO: later (test/fixtures/skips.js): not written yet',
    '',
    '# FAILED: breaks (test/fixtures/fails.js): Expected values to be strictly equal: | 2 !== 3',
    '# FAILED: also breaks (test/fixtures/fails.js): first line | second line',
    '',
    '# FAILED in: test/fixtures/fails.js',
    '',
    'total: 1 passed, 2 failed, 1 skipped'
  ])
})
