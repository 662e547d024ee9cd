/**
 * One look at the server before a swarm, the same for `simulate`, `run` and `capacity`: its
 * handshake (Engine.IO version, pingInterval and so the ramp, upgrades) and the first contact
 * with the namespace (a parser mismatch, a refusal and why), sent with the first client's
 * whole identity (simulator/sessions/identity.js, as the engines render it), so a server that checks a
 * token neither refuses the look nor counts a refusal no client made.
 *
 * Three faults are named here: a server that takes connections and never answers (the
 * handshakes timed out); an address that answers with no Engine.IO at the path (HTTP 404
 * on both transports), which stops before the swarm (exit 2) unless --wait-for-server gives a
 * server still starting time to come up; and a certificate that neither transport trusts,
 * which stops before the swarm (exit 2) at once, with the fix (--ca, --insecure): every client
 * has the same trust, so none could connect. A namespace that refuses the first client stops
 * the same way when every client sends that same identity (no per-client template, feeder,
 * login or scenario identity): none could connect either. With identities that differ, the
 * refusal is only the diagnosis, and the swarm runs.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { CODES, IoswarmError } from '../../lib/errors.js'
import { monotonicMs } from '../../lib/measure/clock.js'
import { compileIdentities, handshakeIdentity, scenarioIdentity } from '../sessions/identity.js'
import { webSocketServerInfo } from '../websocket-options.js'
import { firstLogin } from '../sessions/login-flags.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').SimResult['server']} ServerInfo
 * @typedef {import('../sessions/identity.js').ClientIdentity} ClientIdentity
 */

/** Between two looks while --wait-for-server waits for a server still starting. */
const WAIT_RETRY_MS = 1000

/**
 * @param {import('../sim-options.js').SimOptions} options normalised simulator options (normalizeSimOptions)
 * @param {object} [context]
 * @param {ClientIdentity} [context.identity] the first client's identity; default: rendered from the options (and --scenario's identity())
 * @param {import('../sessions/cookie-jar.js').Jar} [context.jar] the first client's cookies from its login (--login): the looks carry them
 * @param {NodeJS.ProcessEnv} [context.env] what {{env.NAME}} reads for that default (the simulators' environment)
 * @param {AbortSignal} [context.signal] stops waiting (--wait-for-server)
 * @param {number} [context.timeoutMs] each probe's wait for an answer (default: the probes' own)
 * @returns {Promise<ServerInfo>}
 * @throws {IoswarmError} the address answers with no Engine.IO at the path, with a certificate no client trusts, or refuses the
 *   namespace to an identity every client shares (exit 2)
 */
export async function inspectServer (options, { identity, jar = null, env, signal, timeoutMs } = {}) {
  /** @type {Record<string, unknown> | null} */
  let loginFields = null
  if (options.protocol === 'websocket') return webSocketServerInfo(options)
  // Without the swarm's own client 0 (a run's or --workers' look): it logs in here, once, as that client would (--login).
  if (identity === undefined && jar === null && options.login) ({ jar, fields: loginFields } = await firstLogin(options, env))
  const first = identity ?? await firstIdentity(options, env, loginFields)
  if (options.protocol === 'sse') {
    const { inspectStream } = await import('./sse-look.js')
    return inspectStream(options, first, { shared: () => sharedIdentity(options, env), signal, timeoutMs })
  }
  const deadline = monotonicMs() + (options.waitForServerMs ?? 0)
  // The probes load with the first look: a simulator handed its runner's look never loads them.
  const { lookOnce } = await import('./inspect-look.js')
  let look = await lookOnce(options, first, timeoutMs, jar)
  // Waiting helps a server still starting (refused, 404, no answer), never a certificate this client does not trust.
  while (look.handshakeError !== null && look.fault !== 'certificate' && monotonicMs() < deadline && !signal?.aborted) {
    await sleep(WAIT_RETRY_MS, undefined, { signal }).catch(() => {})
    look = await lookOnce(options, first, timeoutMs, jar)
  }
  if (look.fault === 'no-engine-io') {
    const waited = options.waitForServerMs
      ? `still, after --wait-for-server ${options.waitForServerMs / 1000} s`
      : 'give --wait-for-server 2m for a server still starting'
    throw new IoswarmError(CODES.NO_ENGINE_IO, `${look.handshakeError}: nothing was started; check --url and --path (${waited})`)
  }
  // Every client would fail the same way: stop before the swarm rather than run it to count the failures.
  if (look.fault === 'certificate') {
    throw new IoswarmError(CODES.FIRST_CONTACT, `${look.handshakeError}: no client can connect with this trust, so nothing was started`)
  }
  if (look.fault === 'namespace-refused' && sharedIdentity(options, env)) {
    throw new IoswarmError(CODES.FIRST_CONTACT, `${look.server.diagnosis}: ` +
      'every client sends this same identity, so none can connect and nothing was started; ' +
      'give what the server wants (--auth, --query, --header, --cookie, --login, or a scenario\'s identity())')
  }
  return look.server
}

/**
 * Whether every client sends the first client's identity: no template that differs per client,
 * no feeder, login or scenario (whose identity() or login may differ per client).
 * @param {import('../sim-options.js').SimOptions} options
 * @param {NodeJS.ProcessEnv} [env]
 */
function sharedIdentity (options, env) {
  if (options.scenario || options.login || options.feeder) return false
  return !compileIdentities(options, { simId: options.id ?? 'inspect', env }).personal
}

/**
 * The first client's identity, rendered as the engines will (client 0 of this simulator).
 * @param {import('../sim-options.js').SimOptions} options
 * @param {NodeJS.ProcessEnv} [env]
 * @param {Record<string, unknown> | null} [login] its login's fields ({{login.FIELD}})
 * @returns {Promise<ClientIdentity>}
 */
async function firstIdentity (options, env, login = null) {
  const identities = compileIdentities(options, { simId: options.id ?? 'inspect', env, login: () => login })
  const hooks = options.scenario ? await (await import('../traffic/scenario-hooks.js')).loadScenario(options.scenario) : null
  const scenario = hooks?.identity ? scenarioIdentity(identities, hooks.identity, { namespace: options.namespace }) : null
  return (handshakeIdentity(options, identities, scenario) ?? identities.of)(0)
}
