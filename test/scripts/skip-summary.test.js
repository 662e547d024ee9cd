import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { ROOT } from '../helpers/cli.js'

test('npm test ends with one line per skipped or todo test and its reason, then the totals', () => {
  // Without NODE_TEST_CONTEXT: else the inner runner reports to this one instead of printing.
  const { NODE_TEST_CONTEXT, ...env } = process.env
  const out = execFileSync(process.execPath, ['--test', '--test-reporter=tap', '--test-reporter-destination=stdout',
    '--test-reporter=./scripts/skip-summary.js', '--test-reporter-destination=stdout', 'test/fixtures/skips.js'], { cwd: ROOT, env, encoding: 'utf8', timeout: 30000 })
  const tail = out.trimEnd().split('\n').slice(-4)
  assert.deepEqual(tail, [
    '# 2 tests skipped or todo:',
    '# SKIPPED: needs a thing (test/fixtures/skips.js): SKIPPED: no thing here (apt-get install thing)',
    '# TODO: later (test/fixtures/skips.js): not written yet',
    'summary: 1 passed, 0 failed, 1 skipped'
  ])
})
