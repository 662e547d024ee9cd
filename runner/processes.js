/**
 * The reference server of a local test: a child process of the runner (so it does not share
 * the runner's event loop), started from server/child.js with its options over IPC, and
 * stopped by its pid with SIGTERM, then SIGKILL after a grace period.
 */
import { fileURLToPath } from 'node:url'
import { forkChild } from '../lib/child.js'
import { CODES, IoswarmError } from '../lib/errors.js'
import { normalizeServeOptions } from '../server/options.js'

const SERVER_CHILD = fileURLToPath(new URL('../server/child.js', import.meta.url))

/**
 * @typedef {import('../lib/child.js').Child} Child
 */

/**
 * Starts the reference server on a free port and resolves once it listens.
 * @param {{ token: string, pingIntervalMs: number, host?: string, port?: number }} options port: 0 (default) = a free one
 * @returns {Promise<Child & { url: string }>}
 */
export async function startServerProcess ({ token, pingIntervalMs, host = '127.0.0.1', port = 0 }) {
  // No broadcast rate limit: the runner is this server's only broadcaster (the token is
  // private to the run), and rounds such as 500x0 go faster than the default 100/s.
  const options = { ...normalizeServeOptions({ port, host, pingInterval: `${pingIntervalMs}ms`, broadcastRate: '0' }), token }
  const child = forkChild(SERVER_CHILD, [])
  child.process.send({ type: 'ioswarm:serve', options })
  const answer = new Promise((resolve, reject) => {
    child.process.on('message', (/** @type {any} */ m) => {
      if (m?.type === 'ioswarm:listening') resolve(m.url)
      else if (m?.type === 'ioswarm:error') reject(new IoswarmError(CODES.SERVER, `the reference server could not start: ${m.message}`))
    })
    child.exited.then(({ code }) => reject(new IoswarmError(CODES.SERVER, `the reference server exited (code ${code}) before listening: ${child.stderr().trim()}`)))
  })
  const url = /** @type {string} */ (await answer)
  return { ...child, url }
}
