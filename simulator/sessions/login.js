/**
 * Each client's HTTP login before it connects: `--login 'POST /login {…}'` with
 * `--login-header`, or a scenario's `login(http, ctx)` hook for flows flags cannot say (a CSRF
 * token first, two requests). A client logs in when the ramp starts it (never all at once), and
 * again when a reconnect is refused: by the handshake with HTTP 401/403 (once per refusal, while
 * the engine's own backoff goes on), or by the app's socket middleware (`io.use` answering the
 * CONNECT with an error, such as "session gone": the engine stays away, as socket.io-client does,
 * so the client connects again once logged in; at most MAX_REFUSED_RELOGINS times in a row). The login's cookies go into the client's jar (every engine and transport
 * sends them from then on); the fields of a JSON answer are `{{login.FIELD}}` and `ctx.login`.
 * Login time is an HDR histogram, failures are counted by reason (`HTTP 500`, `timeout`,
 * `ECONNREFUSED`); when every client's first login has failed, `fatal` says so (the swarm ends
 * with that error, never waits for clients that will not come).
 */
import { IoswarmError, CODES } from '../../lib/errors.js'
import { monotonicMs } from '../../lib/measure/clock.js'
import { createHistogram, encode, recordMs, summarize } from '../../lib/measure/histogram.js'
import { createReasonCounter } from '../../lib/reasons.js'
import { seedCookies } from './cookie-jar.js'
import { loginCertificateStop, loginFailure } from './login-http.js'

export { compileLogin, firstLogin } from './login-flags.js'

/** @typedef {import('./login-http.js').JarHolder} LoginHolder */

/** A refusal that asks for a new login: the handshake answered 401 or 403. */
const REFUSED = /\bHTTP 40[13]\b/

/**
 * New logins a client makes after CONNECT refusals in a row, without its refused namespace
 * connecting in between: a refusal that a login does not cure (a bad token, a banned user)
 * ends there, as socket.io-client's does, instead of a login and a connect per refusal forever.
 */
export const MAX_REFUSED_RELOGINS = 3

/**
 * @typedef {(http: LoginHttpHelper, ctx: import('./identity.js').ClientContext) => unknown} LoginHook a scenario's login: what it
 *   returns (an object) is the client's login fields; a throw is a failed login (an error with a numeric `status` counts as `HTTP <status>`)
 * @typedef {object} LoginHttpHelper requests with the client's cookies, its TLS trust and source address
 * @property {(method: string, url: string, init?: { headers?: Record<string, string>, body?: string, json?: unknown, form?: Record<string, string> }) =>
 *   Promise<import('./login-http.js').LoginResponse>} request
 * @property {(url: string, init?: { headers?: Record<string, string> }) => Promise<import('./login-http.js').LoginResponse>} get
 * @property {(url: string, init?: { headers?: Record<string, string>, body?: string, json?: unknown, form?: Record<string, string> }) =>
 *   Promise<import('./login-http.js').LoginResponse>} post
 */

/**
 * @param {object} context
 * @param {ReturnType<typeof import('./login-flags.js').compileLogin>} context.flags --login, compiled
 * @param {LoginHook | null} context.hook a scenario's login hook (used instead of --login)
 * @param {ReturnType<typeof import('./login-http.js').createLoginHttp>} context.http
 * @param {import('./identity.js').Identities} context.identities
 * @param {() => import('../engines/types.js').EnginePool | null} context.pool the swarm's clients (their jars); null before they exist
 * @param {number} context.capacity the most clients the swarm holds
 * @param {number} context.clients clients wanted at the start (follow() gives the swarm's own count once it opens them)
 */
export function createLogins ({ flags, hook, http, identities, pool, capacity, clients }) {
  let target = () => clients
  /** Each client's login fields (its JSON answer, or the hook's return); null before it logged in. @type {(Record<string, unknown> | null)[]} */
  const fields = new Array(capacity).fill(null)
  const gen = new Uint32Array(capacity)
  const busy = new Uint8Array(capacity)
  /** CONNECT refusals in a row that logged client i in again, and the namespace refused. */
  const strikes = new Uint8Array(capacity)
  /** @type {(string | null)[]} */
  const refusedNsp = new Array(capacity).fill(null)
  const time = createHistogram()
  const failed = createReasonCounter()
  const counts = { attempts: 0, ok: 0, relogins: 0, firstDone: 0, firstOk: 0 }
  let stopped = false
  /** @type {Error | null} every client's first login failed */
  let failure = null
  /** @type {(error: Error) => void} */
  let fail = () => {}
  /** @type {Promise<Error>} */
  const fatal = new Promise((resolve) => { fail = (error) => { failure = error; resolve(error) } })
  /** Why client 0's last login failed, when it did. @type {unknown} */
  let firstError = null
  /** Transport errors of logins made before the tracker existed (client 0's, before the look), told to it once it does. @type {[number, string][]} */
  let untold = []
  /** Where a login's transport error is also counted as a connect error (the swarm's tracker, once it exists). @type {(i: number, reason: string) => void} */
  let connectError = (i, reason) => { untold.push([i, reason]) }
  /** Client 0's login, made before the look at the server (its jar goes with the look). @type {Promise<LoginHolder | null> | null} */
  let early = null

  /**
   * One login of client i, from `seed` (its jar now): its login jar when it succeeded (cookies then in its
   * engine jar too, fields kept), else null.
   * @param {number} i
   * @param {import('./cookie-jar.js').Jar} seed
   * @returns {Promise<LoginHolder | null>}
   */
  async function login (i, seed) {
    busy[i] = 1
    counts.attempts++
    const holder = { jar: seed }
    const startedMs = monotonicMs()
    try {
      const got = hook ? await hook(helperOf(i, holder), identities.contextOf(i)) : await viaFlags(i, holder)
      if (stopped) return null
      recordMs(time, monotonicMs() - startedMs)
      counts.ok++
      fields[i] = got !== null && typeof got === 'object' && !Array.isArray(got) ? /** @type {Record<string, unknown>} */ (got) : {}
      if (holder.jar !== null) pool()?.addCookies?.(i, holder.jar)
      return holder
    } catch (error) {
      if (i === 0) firstError = error
      if (!stopped) {
        const reason = loginFailure(error)
        failed.add(reason)
        // A login that never got an answer (TLS, refused, reset, timeout) failed to reach the server: a connect error too.
        if (typeof (/** @type {{ status?: unknown }} */ (error))?.status !== 'number') connectError(i, `login: ${reason}`)
      }
      return null
    } finally {
      busy[i] = 0
    }
  }

  /**
   * --login's request; its JSON answer's fields.
   * @param {number} i
   * @param {import('./login-http.js').JarHolder} holder
   */
  async function viaFlags (i, holder) {
    const answer = await http.send(i, holder, /** @type {NonNullable<typeof flags>} */ (flags).render(i))
    if (!answer.ok) throw Object.assign(new Error(`HTTP ${answer.status}`), { status: answer.status })
    try {
      return answer.text.trimStart().startsWith('{') ? answer.json() : null
    } catch {
      return null
    }
  }

  /**
   * The hook's `http`: client i's requests through its login jar.
   * @param {number} i
   * @param {import('./login-http.js').JarHolder} holder
   * @returns {LoginHttpHelper}
   */
  function helperOf (i, holder) {
    /** @type {LoginHttpHelper['request']} */
    const request = (method, url, init = {}) => {
      const headers = { ...init.headers }
      let body = init.body ?? null
      if (init.json !== undefined) [body, headers['content-type']] = [JSON.stringify(init.json), headers['content-type'] ?? 'application/json']
      if (init.form !== undefined) {
        [body, headers['content-type']] = [new URLSearchParams(init.form).toString(), headers['content-type'] ?? 'application/x-www-form-urlencoded']
      }
      return http.send(i, holder, { method, url, headers, body })
    }
    return { request, get: (url, init) => request('GET', url, init), post: (url, init) => request('POST', url, init) }
  }

  /**
   * Client i's first login has ended: when every wanted client's has, and none succeeded, the swarm ends.
   * @param {boolean} ok
   */
  function firstDone (ok) {
    counts.firstDone++
    if (ok) counts.firstOk++
    const wanted = target()
    if (!stopped && counts.firstOk === 0 && wanted > 0 && counts.firstDone >= wanted) {
      const reasons = Object.entries(failed.record()).map(([reason, n]) => `${reason} × ${n}`).join(', ')
      const what = flags?.text ?? 'the scenario\'s login hook'
      fail(new IoswarmError(CODES.LOGIN, `login failed: ${reasons} (${what}: no client could log in, so none connected)`))
    }
  }

  /** @param {number} i @returns {import('./cookie-jar.js').Jar} --cookie: what client i's jar starts with */
  const seedOf = (i) => {
    const cookies = identities.of(i).cookies
    return cookies ? seedCookies(null, cookies) : null
  }

  return {
    /** Resolves with the error that ends the swarm: every client's first login failed. */
    fatal,

    /** @param {() => number} wanted clients wanted now (a resized swarm's, --phases'): all of them failing ends the swarm */
    follow (wanted) {
      target = wanted
    },

    /**
     * From now on, a login that got no answer (TLS, refused, timeout) is also counted by `report` as a connect error.
     * @param {(i: number, reason: string) => void} report
     */
    countConnectErrors (report) {
      connectError = report
      for (const [i, reason] of untold) report(i, reason)
      untold = []
    },

    /** The error that ends the swarm, once every client's first login failed; else null. */
    failure: () => failure,

    /** What client i's {{login.FIELD}} read. @param {number} i */
    fieldsOf: (i) => fields[i] ?? null,

    /**
     * Client 0's login, before the look at the server (which then carries its cookies): its jar, or null when it failed;
     * throws (exit 2) when it failed on the login server's certificate.
     * @returns {Promise<import('./cookie-jar.js').Jar>}
     */
    async first () {
      early = login(0, seedOf(0)).then((holder) => { firstDone(holder !== null); return holder })
      const holder = await early
      // A login server whose certificate this trust refuses fails every client alike: stop before the swarm.
      const stop = holder === null ? loginCertificateStop(firstError, flags?.text ?? 'the scenario\'s login hook') : null
      if (stop) throw stop
      return holder?.jar ?? null
    },

    /**
     * Logs client i in, then `connect()` unless the client was stopped meanwhile or the login failed.
     * @param {number} i
     * @param {() => void} connect
     */
    start (i, connect) {
      const mine = ++gen[i]
      const done = i === 0 && early !== null ? early : login(i, seedOf(i)).then((holder) => { firstDone(holder !== null); return holder })
      if (i === 0) early = null
      done.then((holder) => {
        if (holder === null || stopped || gen[i] !== mine) return
        // Client 0 logged in before the pool existed: its cookies join its jar now.
        if (holder.jar !== null && i === 0) pool()?.addCookies?.(0, holder.jar)
        connect()
      })
    },

    /** Client i is stopped: a login in flight does not connect it. @param {number} i */
    cancel (i) {
      gen[i]++
    },

    /**
     * A connect error of client i. A handshake refused with 401/403 logs it in again (the engine
     * reconnects after its backoff); a CONNECT refused by the app's socket middleware (`nsp`
     * given) logs it in again, then `reconnect()` connects it anew (the engine stays away after
     * such a refusal). Once per refusal; CONNECT refusals at most MAX_REFUSED_RELOGINS in a row.
     * @param {number} i
     * @param {string} reason
     * @param {string} [nsp] the namespace whose CONNECT was refused; undefined: the connection failed
     * @param {() => void} [reconnect] closes client i and connects it again
     */
    refused (i, reason, nsp, reconnect) {
      if (stopped || busy[i] || fields[i] === null) return
      if (nsp === undefined) {
        if (!REFUSED.test(reason)) return
        counts.relogins++
        login(i, pool()?.jarOf?.(i) ?? seedOf(i))
        return
      }
      if (strikes[i] >= MAX_REFUSED_RELOGINS) return
      strikes[i]++
      refusedNsp[i] = nsp
      counts.relogins++
      const mine = gen[i]
      login(i, pool()?.jarOf?.(i) ?? seedOf(i)).then((holder) => {
        if (holder !== null && !stopped && gen[i] === mine) reconnect?.()
      })
    },

    /**
     * Client i connected to namespace `nsp`: the one its middleware refused lets it in, so its refusals in a row start again.
     * @param {number} i
     * @param {string} nsp
     */
    connected (i, nsp) {
      if (refusedNsp[i] !== nsp) return
      strikes[i] = 0
      refusedNsp[i] = null
    },

    /** Ends the logins in flight (the swarm's end): none connects or counts from now on. */
    async stop () {
      stopped = true
      await http.close()
    },

    /** @returns {import('../../lib/schema/result-schema.js').LoginReport} */
    record () {
      return {
        request: flags?.text ?? 'login hook',
        attempts: counts.attempts,
        ok: counts.ok,
        relogins: counts.relogins,
        failed: failed.record(),
        time: { ...summarize(time), histogram: encode(time) }
      }
    }
  }
}
