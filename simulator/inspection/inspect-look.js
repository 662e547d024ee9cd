/**
 * One look at the server (simulator/inspection/inspect.js decides when, and how often with
 * --wait-for-server): its handshake and the first contact with the namespace, as the first
 * client. Loaded on the first look: a simulator given its runner's look (`ioswarm run`,
 * capacity) never loads the probes (a process loads only what it uses).
 */
import { DEFAULT_PING_INTERVAL_MS } from '../../lib/protocol.js'
import { diagnoseConnect } from './diagnose.js'
import { probeHandshake } from './handshake.js'
import { inspectionSession } from '../sessions/inspection.js'

/** The first contact's word when an identity has `auth` and the server speaks Socket.IO v2. */
const NO_AUTH_IN_V2 = 'the server speaks Socket.IO v2 (socket.io 2.x), which has no handshake auth: ' +
  '--auth (or a scenario\'s identity().auth) is not sent; carry the token with --query or --header'

/**
 * @typedef {import('../../lib/schema/result-schema.js').SimResult['server']} ServerInfo
 * @typedef {import('../sessions/identity.js').ClientIdentity} ClientIdentity
 */

/**
 * One handshake and first contact.
 * @param {import('../sim-options.js').SimOptions} options
 * @param {ClientIdentity} first
 * @param {number | undefined} timeoutMs
 * @param {import('../sessions/cookie-jar.js').Jar} jar the first client's login cookies
 * @returns {Promise<{ server: ServerInfo, handshakeError: string | null, fault: import('./handshake.js').HandshakeFault | 'namespace-refused' }>}
 */
export async function lookOnce (options, first, timeoutMs, jar) {
  const forced = options.eio ?? null
  const query = { ...options.query, ...first.query }
  // The first client's headers, cookies (a jar across both looks, as a cookie-sticky balancer needs) and TLS trust.
  const http = inspectionSession(options, first, jar?.slice() ?? null)
  const at = { url: options.url, path: options.path, query, headers: first.headers, timeoutMs, http }
  try {
    const handshake = await probeHandshake(at)
    const eio = forced ?? handshake.eio
    const { verdict, problem } = await diagnoseConnect({ ...at, auth: first.auth, namespace: options.namespace, parser: options.parser, eio })
    // Socket.IO v2 has no CONNECT payload: an auth given for it would silently go nowhere.
    const noAuth = eio === 3 && first.auth !== undefined ? `${NO_AUTH_IN_V2}${problem ? `; ${problem}` : ''}` : null
    const server = {
      diagnosis: noAuth ?? problem,
      pingIntervalMs: handshake.pingIntervalMs,
      pingTimeoutMs: handshake.pingTimeoutMs,
      upgrades: handshake.upgrades,
      rampMs: options.rampMs ?? handshake.pingIntervalMs,
      rampSource: options.rampMs === null ? 'handshake pingInterval' : '--ramp',
      handshakeError: null,
      eio,
      eioSource: forced === null ? 'handshake' : '--eio',
      protocol: protocolName(eio)
    }
    return { server, handshakeError: null, fault: verdict === 'namespace-refused' ? verdict : null }
  } catch (error) {
    const eio = forced ?? 4
    const err = /** @type {Error & { fault?: import('./handshake.js').HandshakeFault }} */ (error)
    const server = {
      pingIntervalMs: null,
      pingTimeoutMs: null,
      rampMs: options.rampMs ?? DEFAULT_PING_INTERVAL_MS,
      rampSource: options.rampMs === null ? 'default pingInterval (handshake failed)' : '--ramp',
      handshakeError: err.message,
      diagnosis: null,
      eio,
      eioSource: forced === null ? 'default (handshake failed)' : '--eio',
      protocol: protocolName(eio)
    }
    return { server, handshakeError: err.message, fault: err.fault ?? null }
  } finally {
    await http.close()
  }
}

/**
 * @param {3 | 4} eio
 */
function protocolName (eio) {
  return eio === 3 ? 'Engine.IO v3 / Socket.IO v2 (socket.io 2.x)' : 'Engine.IO v4 / Socket.IO v5 (socket.io 3.x, 4.x)'
}
