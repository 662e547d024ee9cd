/**
 * The EnginePool of the lean engine: a facade over one LeanSession, and the pool's close:
 * every client leaves on purpose, polite closes get a bounded wait, the rest is reset.
 */
import { resolveLeanConfig } from './config.js'
import { LeanSession } from './session.js'
import { closeConnections } from './polling/polling.js'
import { cookieValue, mergeCookies } from '../../sessions/cookie-jar.js'
import { Client } from './client.js'

/** How long close() waits for polite closes before it resets what is left. */
const CLOSE_WAIT_MS = 1000

/**
 * Opens a pool of lean clients.
 * @param {import('./config.js').LeanOptions} options
 * @param {import('../types.js').SwarmEvents} events
 * @returns {import('../types.js').EnginePool}
 */
export function createLeanPool (options, events) {
  const session = new LeanSession(resolveLeanConfig(options), events)
  return {
    connect: (i, transport) => session.connect(i, transport),
    disconnect: (i) => session.disconnect(i),
    emit: (i, nsp, event, args, callback, timeoutMs = 10000, wantsArgs = true, encoded = null) =>
      session.emit(i, nsp, event, args, callback, timeoutMs, wantsArgs, encoded),
    close: () => closeSession(session),
    // Polling: one keep-alive connection per client for polls, a shared pool for posts; no limit (null: Infinity, which JSON cannot carry).
    agent: () => ({ keepAlive: session.config.keepAlive, maxSockets: null }),
    cookieOf: (i, name) => cookieValue(session.clients[i]?.cookies ?? null, name),
    addCookies (i, cookies) {
      // Before its first connect the client is made here, idle: connect() takes it as it is.
      const c = session.clients[i] ??= new Client(i, 'websocket')
      c.cookies = mergeCookies(c.cookies, cookies)
    },
    jarOf: (i) => session.clients[i]?.cookies?.slice() ?? null
  }
}

/**
 * Disconnects every client, waits (bounded) for polite closes, closes their connections.
 * @param {LeanSession} session
 */
async function closeSession (session) {
  /** @type {import('./websocket-transport/websocket.js').SessionSocket[]} */
  const sockets = []
  for (const c of session.clients) {
    if (c === undefined) continue
    if (c.ws !== null) sockets.push(c.ws)
    if (c.probe !== null) sockets.push(c.probe)
    session.disconnect(c.i)
  }
  session.sweeper.stop()
  session.ackSweeper.stop()
  if (session.handles > 0) {
    /** @type {NodeJS.Timeout | undefined} */
    let timer
    await new Promise((resolve) => {
      session.onIdle = () => resolve(undefined)
      timer = setTimeout(resolve, CLOSE_WAIT_MS)
    })
    clearTimeout(timer)
    session.onIdle = null
  }
  for (const ws of sockets) ws.shut(false)
  closeConnections(session)
}
