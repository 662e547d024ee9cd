/**
 * scripts/run-tests.js, the runner `npm test` uses: a file that hangs is stopped by the per-file
 * bound and fails the run with its name, rather than holding it until CI's own limit.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runCli } from '../helpers/cli.js'

test('a test file that never ends is stopped at IOSWARM_TEST_TIMEOUT_MS and fails the run by name', async (t) => {
  const fixture = 'test/fixtures/runner/waits-forever.test.js'
  // Without this test's own runner context, which would make the inner `node --test` skip its files.
  const env = /** @type {Record<string, string>} */ (/** @type {unknown} */ ({ IOSWARM_TEST_TIMEOUT_MS: '1000', NODE_TEST_CONTEXT: undefined }))
  const { code, stdout, stderr } = await runCli(t, ['scripts/run-tests.js', fixture], { env, timeoutMs: 30000 })
  assert.equal(code, 1, stderr)
  assert.match(stdout, /test timed out after 1000ms/)
  assert.match(stdout, new RegExp(`^# FAILED in: ${fixture}$`, 'm'))
})
