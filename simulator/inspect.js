/**
 * One look at the server before a swarm, the same for `simulate`, `run` and `capacity`: its
 * handshake (Engine.IO version, pingInterval and so the ramp, upgrades) and the first contact
 * with the namespace (a parser mismatch, a refusal and why), sent with the first client's
 * whole identity (simulator/identity.js, as the engines render it), so a server that checks a
 * token neither refuses the look nor counts a refusal no client made.
 *
 * Two faults are named here: a server that takes connections and never answers (the
 * handshakes timed out), and an address that answers with no Engine.IO at the path (HTTP 404
 * on both transports), which stops before the swarm (exit 2) unless --wait-for-server gives a
 * server still starting time to come up.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { CODES, IoswarmError } from '../lib/errors.js'
import { monotonicMs } from '../lib/clock.js'
import { DEFAULT_PING_INTERVAL_MS } from '../lib/protocol.js'
import { diagnoseConnect } from './diagnose.js'
import { probeHandshake } from './handshake.js'
import { compileIdentities, handshakeIdentity, scenarioIdentity } from './identity.js'
import { loadScenario } from './scenario.js'
import { webSocketServerInfo } from './websocket-options.js'
import { inspectionSession } from './sessions/inspection.js'
import { firstLogin } from './sessions/login-flags.js'

/**
 * @typedef {import('../lib/schema.js').SimResult['server']} ServerInfo
 * @typedef {import('./identity.js').ClientIdentity} ClientIdentity
 */

/** Between two looks while --wait-for-server waits for a server still starting. */
export const WAIT_RETRY_MS = 1000

/** The first contact's word when an identity has `auth` and the server speaks Socket.IO v2. */
export const NO_AUTH_IN_V2 = 'the server speaks Socket.IO v2 (socket.io 2.x), which has no handshake auth: ' +
  '--auth (or a scenario\'s identity().auth) is not sent; carry the token with --query or --header'

/**
 * @param {import('./options.js').SimOptions} options normalised simulator options (normalizeSimOptions)
 * @param {object} [context]
 * @param {ClientIdentity} [context.identity] the first client's identity; default: rendered from the options (and --scenario's identity())
 * @param {import('./sessions/cookie-jar.js').Jar} [context.jar] the first client's cookies from its login (--login): the looks carry them
 * @param {NodeJS.ProcessEnv} [context.env] what {{env.NAME}} reads for that default (the simulators' environment)
 * @param {AbortSignal} [context.signal] stops waiting (--wait-for-server)
 * @param {number} [context.timeoutMs] each probe's wait for an answer (default: the probes' own)
 * @returns {Promise<ServerInfo>}
 * @throws {IoswarmError} the address answers with no Engine.IO at the path (exit 2)
 */
export async function inspectServer (options, { identity, jar = null, env, signal, timeoutMs } = {}) {
  /** @type {Record<string, unknown> | null} */
  let loginFields = null
  if (options.protocol === 'websocket') return webSocketServerInfo(options)
  // Without the swarm's own client 0 (a run's or --workers' look): it logs in here, once, as that client would (--login).
  if (identity === undefined && jar === null && options.login) ({ jar, fields: loginFields } = await firstLogin(options, env))
  const first = identity ?? await firstIdentity(options, env, loginFields)
  const deadline = monotonicMs() + (options.waitForServerMs ?? 0)
  let look = await lookOnce(options, first, timeoutMs, jar)
  while (look.handshakeError !== null && monotonicMs() < deadline && !signal?.aborted) {
    await sleep(WAIT_RETRY_MS, undefined, { signal }).catch(() => {})
    look = await lookOnce(options, first, timeoutMs, jar)
  }
  if (look.fault === 'no-engine-io') {
    const waited = options.waitForServerMs
      ? `still, after --wait-for-server ${options.waitForServerMs / 1000} s`
      : 'give --wait-for-server 2m for a server still starting'
    throw new IoswarmError(CODES.NO_ENGINE_IO, `${look.handshakeError}: nothing was started; check --url and --path (${waited})`)
  }
  return look.server
}

/**
 * The first client's identity, rendered as the engines will (client 0 of this simulator).
 * @param {import('./options.js').SimOptions} options
 * @param {NodeJS.ProcessEnv} [env]
 * @param {Record<string, unknown> | null} [login] its login's fields ({{login.FIELD}})
 * @returns {Promise<ClientIdentity>}
 */
export async function firstIdentity (options, env, login = null) {
  const identities = compileIdentities(options, { simId: options.id ?? 'inspect', env, login: () => login })
  const hooks = options.scenario ? await loadScenario(options.scenario) : null
  const scenario = hooks?.identity ? scenarioIdentity(identities, hooks.identity, { namespace: options.namespace }) : null
  return (handshakeIdentity(options, identities, scenario) ?? identities.of)(0)
}

/**
 * One handshake and first contact.
 * @param {import('./options.js').SimOptions} options
 * @param {ClientIdentity} first
 * @param {number | undefined} timeoutMs
 * @param {import('./sessions/cookie-jar.js').Jar} jar the first client's login cookies
 * @returns {Promise<{ server: ServerInfo, handshakeError: string | null, fault: import('./handshake.js').HandshakeFault }>}
 */
async function lookOnce (options, first, timeoutMs, jar) {
  const forced = options.eio ?? null
  const query = { ...options.query, ...first.query }
  // The first client's headers, cookies (a jar across both looks, as a cookie-sticky balancer needs) and TLS trust.
  const http = inspectionSession(options, first, jar?.slice() ?? null)
  const at = { url: options.url, path: options.path, query, headers: first.headers, timeoutMs, http }
  try {
    const handshake = await probeHandshake(at)
    const eio = forced ?? handshake.eio
    const { problem } = await diagnoseConnect({ ...at, auth: first.auth, namespace: options.namespace, parser: options.parser, eio })
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
    return { server, handshakeError: null, fault: null }
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
