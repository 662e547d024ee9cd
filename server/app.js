/**
 * The app namespaces of the reference server (`--namespace`, default /): what clients of a
 * real app meet there. With `--auth-token`, a middleware refuses a connection whose
 * handshake does not carry the token; every socket may join and leave rooms and have the
 * relay event relayed (server/rooms.js). Refusals, joins and relays are counted for
 * GET /stats. Other namespaces are refused as socket.io refuses unknown ones, / included
 * when it is not an app namespace (socket.io always has it).
 */
import { handleClient } from './rooms.js'
import { handshakeCarries } from './broadcast/token.js'

/**
 * @typedef {import('./rooms.js').ClientCounts} ClientCounts
 * @typedef {import('../lib/schema/result-schema.js').AppCounts} AppCounts
 */

/**
 * @param {import('socket.io').Server} io
 * @param {object} options
 * @param {string[]} options.namespaces
 * @param {string | null} options.authToken
 * @param {string} options.relayEvent
 * @param {number} options.relayRatePerSec per client; Infinity = no limit
 * @returns {{ counts: () => AppCounts }}
 */
export function serveApp (io, { namespaces, authToken, relayEvent, relayRatePerSec }) {
  let refused = 0
  /** @type {ClientCounts} */
  const counts = { rooms: { joins: 0, leaves: 0, rejected: 0 }, relay: { received: 0, relayed: 0, rejected: 0, limited: 0 } }
  if (!namespaces.includes('/')) io.of('/').use((_socket, next) => next(new Error('Invalid namespace')))
  for (const name of namespaces) {
    const nsp = io.of(name)
    if (authToken !== null) {
      nsp.use((socket, next) => {
        if (handshakeCarries(authToken, socket.handshake)) return next()
        refused++
        next(new Error('unauthorized'))
      })
    }
    nsp.on('connection', (socket) => handleClient(socket, { relayEvent, relayRatePerSec, counts }))
  }
  return {
    counts: () => ({
      namespaces: Object.fromEntries(namespaces.map((name) => [name, io.of(name).sockets.size])),
      refused,
      rooms: { ...counts.rooms },
      relay: { ...counts.relay }
    })
  }
}

/**
 * The totals of several processes' counts (a cluster's workers).
 * @param {AppCounts[]} list
 * @returns {AppCounts}
 */
export function sumAppCounts (list) {
  /** @type {AppCounts} */
  const total = { namespaces: {}, refused: 0, rooms: { joins: 0, leaves: 0, rejected: 0 }, relay: { received: 0, relayed: 0, rejected: 0, limited: 0 } }
  for (const c of list) {
    for (const [name, n] of Object.entries(c.namespaces)) total.namespaces[name] = (total.namespaces[name] ?? 0) + n
    total.refused += c.refused
    for (const key of /** @type {(keyof ClientCounts['rooms'])[]} */ (Object.keys(total.rooms))) total.rooms[key] += c.rooms[key]
    for (const key of /** @type {(keyof ClientCounts['relay'])[]} */ (Object.keys(total.relay))) total.relay[key] += c.relay[key]
  }
  return total
}
