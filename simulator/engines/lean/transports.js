/**
 * The lean engine's wire transports by name, as engine.io-client's transports/index does:
 * each module opens a session's connection and sends a packet on it. The session picks them
 * by the names of lib/transports.js (a client mode's first wire transport), and keeps the
 * small `wire` number of the one in use on the client, so the per-packet path compares
 * integers and calls through one table entry.
 */
import { WIRE } from './client.js'
import { openWebSocket } from './websocket-transport/websocket.js'
import { poll, pollSend } from './polling/polling.js'

/**
 * @typedef {object} LeanTransport
 * @property {import('../../../lib/transports.js').WireTransport} name
 * @property {number} wire the client's `wire` while it is in use (one of WIRE)
 * @property {(session: import('./session.js').LeanSession, c: import('./client.js').Client) => void} open starts a session on it
 * @property {(session: import('./session.js').LeanSession, c: import('./client.js').Client, packet: string) => void} send
 */

/** @type {Record<import('../../../lib/transports.js').WireTransport, LeanTransport>} */
export const transports = {
  websocket: { name: 'websocket', wire: WIRE.WEBSOCKET, open: (s, c) => openWebSocket(s, c, false), send: (s, c, packet) => c.ws?.sendText(packet) },
  polling: { name: 'polling', wire: WIRE.POLLING, open: poll, send: pollSend }
}

/** The transports by the client's `wire` number (index 0: none). */
export const BY_WIRE = /** @type {(LeanTransport | null)[]} */ ([null])
for (const t of Object.values(transports)) BY_WIRE[t.wire] = t
