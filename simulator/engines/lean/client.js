/**
 * The state of one lean client: a small object with no closures and no timers (deadlines
 * live in the shared DeadlineSweeper, handlers are shared functions that find the client
 * through the socket or request they run on).
 */
import { WIRE_NONE, wireNumber } from '../../../lib/transports.js'
import { STATE } from '../../wire/state.js'

/** Where a client is in its life: the states both the lean and the plain WebSocket engine use. */
export { STATE }

/** The transport carrying the session now: lib/transports.js's numbers, which the swarm's tracker uses too. */
export const WIRE = Object.freeze({ NONE: WIRE_NONE, POLLING: wireNumber('polling'), WEBSOCKET: wireNumber('websocket') })

/**
 * A BINARY_EVENT waiting for its attachments.
 * @typedef {object} PendingBinary
 * @property {number} expected
 * @property {Buffer[]} buffers
 * @property {unknown[] | null} args null when the event is filtered out (attachments are counted, not kept)
 * @property {string} event
 * @property {number} [ns] its namespace's index
 */

export class Client {
  /**
   * @param {number} i the swarm's index
   * @param {import('../../../lib/values/parsers.js').Transport} mode
   */
  constructor (i, mode) {
    this.i = i
    this.mode = mode
    /** @type {number} one of STATE */
    this.state = STATE.IDLE
    /** @type {number} one of WIRE */
    this.wire = WIRE.NONE
    /** Bumped whenever a session ends: callbacks of older transports compare and bow out. */
    this.gen = 0
    /** @type {import('./websocket-transport/websocket.js').SessionSocket | null} the WebSocket carrying the session */
    this.ws = null
    /** @type {import('./websocket-transport/websocket.js').SessionSocket | null} a WebSocket being probed for upgrade */
    this.probe = null
    /** @type {import('./polling/polling.js').AnyRequest | null} the poll GET in flight */
    this.getReq = null
    /** @type {import('./polling/polling.js').AnyRequest | null} the POST in flight */
    this.postReq = null
    /** @type {import('undici').Client | import('../../wire/http-socket.js').HttpSocket | null} keep-alive connection for polls, made on first use */
    this.httpGet = null
    /** @type {Record<string, string> | null} the headers headerLines was made from (the built-in client) */
    this.headerLinesOf = null
    /** The request header lines of `headers` (the built-in client). */
    this.headerLines = ''
    /** @type {string[] | null} packets waiting for the next POST (or for the upgrade) */
    this.outQueue = null
    /** Upgrade probe answered: polling stops once the in-flight requests are done. */
    this.pausing = false
    this.sid = ''
    /** Connection-state-recovery session id and last offset, when the server has recovery on. */
    this.pid = ''
    this.offset = ''
    this.pingWindowMs = 0
    /** Engine.IO v3: the client pings; a ping is out and its pong awaited. */
    this.pingPending = false
    /** Reconnection attempts since the last successful open (backoff exponent). */
    this.attempts = 0
    this.reconnecting = false
    /** Its reconnect was deferred by --ramp-guard's cap (its token taken): it goes when the wait is over, without asking again. */
    this.paced = false
    /** @type {PendingBinary | null} */
    this.binary = null
    /** @type {import('./codec.js').DecodedEvent[] | null} events that came before the CONNECT ack (recovered packets) */
    this.early = null
    /** A poll's path up to its stamp (`…&sid=…&t=`), and the sid and query it was made for. */
    this.pathBase = ''
    /** @type {string | null} */
    this.pathSid = null
    this.pathQuery = ''
    /** This attempt's own query parameters (`&k=v…`), from --query templates; '' when none. */
    this.querySuffix = ''
    /** @type {Record<string, string> | null} this attempt's own headers (--header), null when none */
    this.headers = null
    /** @type {import('../../sessions/cookie-jar.js').Jar} cookies the server (or --cookie) gave this client */
    this.cookies = null
    /** @type {Record<string, unknown> | undefined} this attempt's auth payload (--auth) */
    this.auth = undefined
    /** Namespaces connected now: bit k = the session's namespace k (its CONNECT was acknowledged). */
    this.up = 0
    /** Namespaces that refused this session (CONNECT_ERROR). */
    this.refused = 0
    /**
     * The emit waiting for its acknowledgement first: its ack id (-1: none), namespace, callback
     * and deadline, held here rather than in `acks` (a client rarely waits for two at once: no
     * Map entry and no waiter object per emit).
     */
    this.ackId = -1
    this.ackNs = 0
    /** @type {((error: Error | null, args: unknown[]) => void) | null} */
    this.ackCallback = null
    this.ackDeadline = 0
    /** The first slot's emit reads its ack's arguments (else they are not decoded). */
    this.ackWantsArgs = true
    /** @type {Map<number, import('./namespaces.js').AckWaiter> | null} the other emits waiting for their acknowledgement, by ack id */
    this.acks = null
    /** The next ack id (socket.io-client counts from 0 per Manager). */
    this.nextAck = 0
  }
}
