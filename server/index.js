/**
 * The reference app server under test: a socket.io 4 server that relays each broadcast to
 * every client of its app namespaces, or to a room of them, a token-guarded POST /broadcast
 * and admin namespace to trigger broadcasts, and GET /stats with its own CPU, memory,
 * event-loop delay and connections. Clients may be required to bring a token, join and
 * leave rooms, and have their emits relayed to a room (server/app.js). With an adapter, a
 * broadcast reaches the clients of every server process sharing it.
 */
import http from 'node:http'
import { randomBytes } from 'node:crypto'
import { Server } from 'socket.io'
import { invalidOption } from '../lib/errors.js'
import { parseInteger } from '../lib/values/parsers.js'
import { createProcessSampler } from '../lib/measure/process-sampler.js'
import { ADMIN_NAMESPACE, DEFAULT_EVENT, DEFAULT_PATH, DEFAULT_RELAY_EVENT, JOIN_EVENT, LEAVE_EVENT } from '../lib/protocol.js'
import { parseEventName } from '../lib/cli-options/tables/serve.js'
import { parseNamespaces } from '../lib/values/parsers.js'
import { createAdapterSetup } from './adapters.js'
import { serveApp } from './app.js'
import { createBroadcastHandler } from './broadcast/broadcast.js'
import { DEFAULT_BROADCAST_RATE, createBroadcastLimiter, parseBroadcastRate, rateLimitedReply } from './broadcast/broadcast-limit.js'
import { trackConnections } from './connections.js'
import { listen, route, sendJson } from './broadcast/http-endpoints.js'
import { tokenMatches } from './broadcast/token.js'

import { PARSER_NAMES } from '../lib/values/option-values.js'

export { PARSER_NAMES }
export { normalizeServeOptions } from './server-options.js'

/**
 * @typedef {import('../lib/schema/result-schema.js').ServerSample} ServerSample
 * @typedef {object} ServerOptions
 * @property {number} [port] 0 = a free port
 * @property {string} [host] address to bind; default all interfaces
 * @property {string} [token] broadcast token; a random one is generated when missing
 * @property {string} [path]
 * @property {string} [event] default broadcast event
 * @property {number} [pingIntervalMs]
 * @property {number} [pingTimeoutMs]
 * @property {number} [maxBodyBytes] largest POST /broadcast body
 * @property {string | number} [broadcastRate] broadcasts accepted per second, HTTP and admin together: '100/s' (default), '600/m', 0 = no limit
 * @property {string} [parser] 'json' (default) or 'msgpack' (socket.io-msgpack-parser)
 * @property {boolean} [perMessageDeflate] WebSocket permessage-deflate (default off, as socket.io)
 * @property {number} [maxHttpBufferSize] largest message a client may send, bytes (default 1e6)
 * @property {string} [adapter] 'memory' (default), 'cluster', 'redis' or 'redis-streams'
 * @property {string | null} [redisUrl] for the Redis adapters
 * @property {'close' | 'disconnect'} [shutdown] close (default): clients reconnect; disconnect: io.disconnectSockets(true) first
 * @property {string[]} [namespaces] the app namespaces clients connect to and broadcasts go to (default ['/'])
 * @property {string | null} [authToken] refuse app-namespace connections whose handshake lacks it (auth.token, query token, Authorization: Bearer)
 * @property {string} [relayEvent] the client emit relayed to a room (default 'chat')
 * @property {string | number} [relayRate] relays accepted per second from one client: '100/s' (default), 0 = no limit
 * @property {boolean} [sticky] a node:cluster worker behind @socket.io/sticky: the primary
 *   listens and hands connections over, so this server does not listen itself
 */

/**
 * @typedef {object} ServerHooks
 * @property {(sample: ServerSample) => void} [onSample] called every sampleIntervalMs
 * @property {number} [sampleIntervalMs]
 * @property {() => Promise<unknown>} [stats] what GET /stats answers instead of this process's stats (a cluster's totals)
 * @property {(targets: import('./broadcast/broadcast.js').BroadcastTarget[]) => number} [recipients] clients one broadcast message reaches, from this process's counts
 */

/**
 * Starts the reference server; resolves once it listens (or, when sticky, once it is ready
 * to be handed connections).
 * @param {ServerOptions} [options]
 * @param {ServerHooks} [hooks]
 */
export async function startServer (options = {}, hooks = {}) {
  const port = parseInteger(options.port ?? 3000, '--port', { min: 0, max: 65535 })
  const token = options.token || randomBytes(18).toString('base64url')
  const limiter = createBroadcastLimiter(parseBroadcastRate(options.broadcastRate ?? DEFAULT_BROADCAST_RATE))
  const namespaces = parseNamespaces(options.namespaces ?? null, '--namespace') ?? ['/']
  const relayEvent = parseEventName(options.relayEvent ?? DEFAULT_RELAY_EVENT, '--relay-event', [JOIN_EVENT, LEAVE_EVENT])
  const relayRatePerSec = parseBroadcastRate(options.relayRate ?? DEFAULT_BROADCAST_RATE, '--relay-rate')
  const parser = await loadParser(options.parser ?? 'json')
  const adapterSetup = await createAdapterSetup(options.adapter ?? 'memory', { redisUrl: options.redisUrl })
  const httpServer = http.createServer()
  const io = new Server(httpServer, {
    path: options.path ?? DEFAULT_PATH,
    pingInterval: options.pingIntervalMs ?? 25000,
    pingTimeout: options.pingTimeoutMs ?? 20000,
    perMessageDeflate: options.perMessageDeflate ?? false,
    maxHttpBufferSize: options.maxHttpBufferSize ?? 1e6,
    cors: { origin: '*' },
    ...(parser ? { parser } : {}),
    ...(adapterSetup.adapter ? { adapter: adapterSetup.adapter } : {})
  })
  const connections = trackConnections(io, namespaces)
  const app = serveApp(io, { namespaces, authToken: options.authToken ?? null, relayEvent, relayRatePerSec })
  const broadcast = createBroadcastHandler({ io, defaultEvent: options.event ?? DEFAULT_EVENT, namespaces, recipients: hooks.recipients })
  const sampler = createProcessSampler()
  // GET /stats also says why connections closed (bench/scale.js: which side gave out first).
  const stats = () => ({ ...sampler.sample(), ...connections.counts(), closes: connections.closes(), app: app.counts() })
  // Its own sampler: GET /stats covers the time since the previous GET, the hook one second.
  const hookSampler = hooks.onSample ? createProcessSampler() : undefined
  const sampleTimer = hookSampler && setInterval(() => {
    hooks.onSample?.({ ...hookSampler.sample(), ...connections.counts(), app: app.counts() })
  }, hooks.sampleIntervalMs ?? 1000)
  serveAdmin(io, token, broadcast, limiter)

  httpServer.on('request', (req, res) => {
    // socket.io answers its own path; everything else is ours.
    if (req.url?.startsWith(io.path())) return
    route(req, res, { token, broadcast, limiter, stats: hooks.stats ?? stats, maxBodyBytes: options.maxBodyBytes ?? 1 << 20 }).catch((error) => {
      sendJson(res, 500, { error: /** @type {Error} */ (error).message })
    })
  })

  let address
  try {
    address = options.sticky ? await attachSticky(io) : await listen(httpServer, port, options.host)
    await adapterSetup.ready()
  } catch (error) {
    clearInterval(sampleTimer)
    io.close()
    await adapterSetup.close()
    throw error
  }
  const host = options.host && options.host !== '0.0.0.0' && options.host !== '::' ? options.host : 'localhost'

  return {
    io,
    httpServer,
    port: address.port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${address.port}`,
    token,
    tokenGenerated: !options.token,
    namespaces,
    stats,
    broadcast,
    async close () {
      clearInterval(sampleTimer)
      sampler.stop()
      hookSampler?.stop()
      // By default as a stock socket.io server: the transports close and clients reconnect
      // (to the next instance, in a rolling restart). `disconnect` tells them to stay away.
      if (options.shutdown === 'disconnect') io.disconnectSockets(true)
      await new Promise((resolve) => io.close(() => resolve(undefined)))
      await adapterSetup.close()
    }
  }
}

/**
 * The admin namespace: broadcasts by emit, for a token in the handshake auth.
 * @param {Server} io
 * @param {string} token
 * @param {(body: unknown) => Promise<unknown>} broadcast
 * @param {ReturnType<typeof createBroadcastLimiter>} limiter
 */
function serveAdmin (io, token, broadcast, limiter) {
  io.of(ADMIN_NAMESPACE).use((socket, next) => {
    next(tokenMatches(token, socket.handshake.auth?.token) ? undefined : new Error('unauthorized: a valid token is required'))
  }).on('connection', (socket) => {
    socket.on('broadcast', async (body, ack) => {
      const reply = typeof ack === 'function' ? ack : () => {}
      const taken = limiter.take()
      if (!taken.ok) return reply(rateLimitedReply(limiter.ratePerSec, taken.retryAfterMs))
      try {
        reply({ ok: true, messages: await broadcast(body) })
      } catch (error) {
        reply({ ok: false, error: /** @type {Error} */ (error).message })
      }
    })
  })
}

/**
 * socket.io's `parser` option for a parser name; undefined = socket.io's default (JSON).
 * @param {string} name
 */
async function loadParser (name) {
  if (!PARSER_NAMES.includes(name)) throw invalidOption('--parser', `must be one of ${PARSER_NAMES.join(', ')}, got ${JSON.stringify(name)}`)
  if (name === 'json') return undefined
  return (await import('socket.io-msgpack-parser')).default
}

/**
 * Lets a sticky-session primary hand this worker its connections (@socket.io/sticky).
 * @param {Server} io
 * @returns {Promise<{ port: number }>} port 0: the primary knows the real one
 */
async function attachSticky (io) {
  const { setupWorker } = await import('@socket.io/sticky')
  setupWorker(io)
  return { port: 0 }
}
