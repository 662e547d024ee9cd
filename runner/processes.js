/**
 * The processes a local test starts: the reference server and the simulators, each a
 * child process of the runner (so none shares the runner's event loop), each stopped by
 * its pid with SIGTERM, then SIGKILL after a grace period.
 */
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { CODES, IoswarmError } from '../lib/errors.js'

const CLI = fileURLToPath(new URL('../bin/ioswarm.js', import.meta.url))

/**
 * @typedef {object} Child
 * @property {import('node:child_process').ChildProcess} process
 * @property {number} pid
 * @property {() => string} stderr the last lines it wrote
 * @property {Promise<{ code: number | null, signal: string | null }>} exited
 * @property {() => boolean} running not exited yet
 * @property {(graceMs?: number) => Promise<void>} stop SIGTERM, then SIGKILL after graceMs
 */

/**
 * @param {string[]} args CLI arguments
 * @param {Record<string, string>} [env] added to this process's environment
 * @returns {Child}
 */
export function startCli (args, env = {}) {
  const child = fork(CLI, args, { stdio: ['ignore', 'pipe', 'pipe', 'ipc'], env: { ...process.env, ...env } })
  let tail = ''
  child.stderr?.on('data', (data) => { tail = (tail + data).slice(-4000) })
  const exited = once(child, 'exit').then(([code, signal]) => ({ code, signal }))
  const running = () => child.exitCode === null && child.signalCode === null
  return {
    process: child,
    pid: /** @type {number} */ (child.pid),
    stderr: () => tail,
    exited,
    running,
    async stop (graceMs = 20000) {
      if (!running()) return
      child.kill('SIGTERM')
      // A stopped process (SIGSTOP, Ctrl-Z) keeps the SIGTERM pending until it continues.
      child.kill('SIGCONT')
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      await exited
      clearTimeout(timer)
    }
  }
}

/**
 * Starts `ioswarm serve` on a free loopback port and resolves once it listens.
 * @param {{ token: string, pingIntervalMs: number, host?: string }} options
 * @returns {Promise<Child & { url: string }>}
 */
export async function startServerProcess ({ token, pingIntervalMs, host = '127.0.0.1' }) {
  // The token goes by environment: it stays out of `ps`, and a token that starts with '-'
  // cannot be taken for a flag.
  // No broadcast rate limit: the runner is this server's only broadcaster (the token is
  // private to the run), and rounds such as 500x0 go faster than the default 100/s.
  const child = startCli(['serve', '--port', '0', '--host', host, '--ping-interval', `${pingIntervalMs}ms`, '--broadcast-rate', '0', '--json'], { IOSWARM_TOKEN: token })
  const line = new Promise((resolve, reject) => {
    let out = ''
    child.process.stdout?.on('data', (data) => {
      out += data
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')))
    })
    child.exited.then(({ code }) => reject(new IoswarmError(CODES.SERVER, `the reference server exited (code ${code}) before listening: ${child.stderr().trim()}`)))
  })
  const { url } = JSON.parse(/** @type {string} */ (await line))
  return { ...child, url }
}
