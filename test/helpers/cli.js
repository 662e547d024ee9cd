/**
 * Runs the real CLI binary in a child process and collects its output; the child is killed
 * by pid if it outlives the test.
 */
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { waitFor } from './wait.js'

export const ROOT = fileURLToPath(new URL('../../', import.meta.url))
/** The ioswarm binary. */
export const BIN = fileURLToPath(new URL('../../bin/ioswarm.js', import.meta.url))

/**
 * @param {import('node:test').TestContext} t
 * @param {string[]} args arguments after `node`, e.g. ['bin/ioswarm.js', 'simulate', …]
 * @param {{ env?: Record<string, string>, timeoutMs?: number, onStderr?: (text: string, child: import('node:child_process').ChildProcess) => void }} [options]
 * @returns {Promise<{ code: number | null, signal: string | null, stdout: string, stderr: string }> & { child: import('node:child_process').ChildProcess, output: () => { stdout: string, stderr: string } }}
 *   output: what the child printed so far
 */
export function runCli (t, args, { env = {}, timeoutMs = 60000, onStderr } = {}) {
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, NO_COLOR: '1', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => { stdout += d })
  child.stderr.on('data', (d) => {
    stderr += d
    onStderr?.(stderr, child)
  })
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
  const done = new Promise((resolve) => {
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
  })
  return Object.assign(done, { child, output: () => ({ stdout, stderr }) })
}

/**
 * The first URL a running CLI printed on stderr after `label` (a server it started on port 0 says where it listens,
 * e.g. `ioswarm simulate ID: metrics http://127.0.0.1:PORT/metrics`); fails if the CLI exits or stays silent.
 * @param {ReturnType<typeof runCli>} run
 * @param {string} label the words just before the URL, such as 'metrics'
 * @param {number} [timeoutMs]
 * @returns {Promise<string>}
 */
export async function printedUrl (run, label, timeoutMs = 30000) {
  let ended = false
  run.finally(() => { ended = true }).catch(() => {})
  const pattern = new RegExp(`${label} (https?://\\S+)`)
  const url = await waitFor(() => ended || pattern.exec(run.output().stderr)?.[1], {
    timeoutMs, message: () => `the CLI to print "${label} URL" (stderr so far: ${run.output().stderr.slice(-500)})`
  })
  if (typeof url !== 'string') throw new Error(`the CLI ended before it printed "${label} URL": ${run.output().stderr.slice(-2000)}`)
  return url
}

/** Refused command lines run at once, at most: each is a whole node process loading the CLI. */
const REFUSALS_AT_ONCE = 3

/**
 * Command lines the CLI must refuse before it starts anything: each exits 2 with its message on
 * stderr (and, with `notMatch`, without that text: a sign something started). They run a few at
 * a time, each case named in its failure.
 * @param {import('node:test').TestContext} t
 * @param {string[]} base the arguments before each case's, e.g. ['bin/ioswarm.js', 'run']
 * @param {[string[], RegExp][]} cases each case's own arguments and the message it must print
 * @param {{ notMatch?: RegExp, timeoutMs?: number, noStdout?: boolean }} [options] noStdout: nothing on stdout either
 */
export async function expectRefusals (t, base, cases, { notMatch, timeoutMs = 30000, noStdout = false } = {}) {
  let next = 0
  const lane = async () => {
    while (next < cases.length) {
      const [args, message] = cases[next++]
      const named = args.join(' ')
      const { code, stdout, stderr } = await runCli(t, [...base, ...args], { timeoutMs })
      assert.equal(code, 2, `${named}: exit code (stderr: ${stderr})`)
      assert.match(stderr, message, named)
      if (notMatch) assert.doesNotMatch(stderr, notMatch, `${named}: refused before it started`)
      if (noStdout) assert.equal(stdout, '', `${named}: nothing on stdout`)
    }
  }
  await Promise.all(Array.from({ length: Math.min(REFUSALS_AT_ONCE, cases.length) }, lane))
}
