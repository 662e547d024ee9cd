/**
 * Skipping a test that cannot run on this machine (a tool, a package or /proc missing), loudly:
 * the reason goes to the test's diagnostics and to the skip list at the end of
 * scripts/run-tests.js. Under CI=true a skip is a failure: CI must run everything.
 */

/**
 * Skips the test `t` with `reason` (a text with the word SKIPPED in it); throws under CI=true.
 * @param {import('node:test').TestContext} t
 * @param {string} reason such as `SKIPPED: /usr/sbin/haproxy is not installed (apt-get install haproxy)`
 */
export function skipOrFail (t, reason) {
  if (process.env.CI === 'true') throw new Error(reason.replace('SKIPPED', 'FAILED under CI=true'))
  t.diagnostic(reason)
  t.skip(reason)
}
