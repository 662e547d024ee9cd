/**
 * The reference server of a local test: a child process of the runner (so it does not share
 * the runner's event loop), started from server/child.js with its options over IPC, and
 * stopped by its pid with SIGTERM, then SIGKILL after a grace period.
 */
import { fileURLToPath } from 'node:url'
import { forkChild } from '../lib/child.js'
import { CODES, IoswarmError } from '../lib/errors.js'
import { normalizeServeOptions } from '../server/index.js'

const SERVER_CHILD = fileURLToPath(new URL('../server/child.js', import.meta.url))

/**
 * @typedef {import('../lib/child.js').Child} Child
 */

/**
 * Starts the reference server on a free port and resolves once it listens.
 * @param {object} options
 * @param {string} options.token the broadcast token
 * @param {number} options.pingIntervalMs
 * @param {string | null} [options.authToken] clients must bring it (serve --auth-token)
 * @param {string[] | null} [options.namespaces] the app namespaces (default /)
 * @param {string} [options.host]
 * @param {number} [options.port] 0 (default) = a free one
 * @param {'socketio' | 'websocket' | 'sse'} [options.protocol] websocket: the plain WebSocket reference server (sse has none: the serve normaliser refuses it)
 * @returns {Promise<Child & { url: string }>}
 */
export async function startServerProcess ({ token, pingIntervalMs, authToken = null, namespaces = null, host = '127.0.0.1', port = 0, protocol = 'socketio' }) {
  // No broadcast or relay rate limit: the runner is this server's only broadcaster (the
  // token is private to the run), rounds such as 500x0 go faster than the default 100/s,
  // and the run's own clients are the load being measured.
  // The tokens travel in the IPC message, never in argv or the environment.
  const app = protocol === 'websocket' ? {} : { relayRate: '0', namespace: namespaces ?? undefined }
  const options = { ...normalizeServeOptions({ port, host, pingInterval: `${pingIntervalMs}ms`, broadcastRate: '0', authToken, protocol, ...app }), token }
  const child = forkChild(SERVER_CHILD, [])
  child.process.send({ type: 'ioswarm:serve', options })
  const answer = new Promise((resolve, reject) => {
    child.process.on('message', (/** @type {any} */ m) => {
      if (m?.type === 'ioswarm:listening') resolve(m.url)
      else if (m?.type === 'ioswarm:error') reject(new IoswarmError(CODES.SERVER, `the reference server could not start: ${m.message}`))
    })
    child.exited.then(({ code }) => {
      reject(new IoswarmError(CODES.SERVER, `the reference server exited (code ${code}) before listening: ${child.stderr().trim()}`))
    })
  })
  const url = /** @type {string} */ (await answer)
  return { ...child, url }
}
