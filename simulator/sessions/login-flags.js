/**
 * --login and --login-header as flags: the request each client makes, compiled from its
 * templates (checked when options are normalised: a usage error names the flag), and client
 * 0's one login for a look at the server made without the swarm.
 */
import { invalidOption } from '../../lib/errors.js'
import { compileJsonTemplate, compileTextTemplate } from '../../lib/input/template.js'
import { parseHeaders, parseLoginSpec } from '../../lib/values/option-values.js'
import { compileIdentities } from './identity.js'
import { seedCookies } from './cookie-jar.js'

/**
 * --login and --login-header, checked (a usage error names the flag) and compiled; null without --login.
 * @param {{ login?: string | null, loginHeaders?: string[] }} options
 * @param {import('./identity.js').Identities} identities
 * @returns {{ text: string, render: (i: number) => import('./login-http.js').LoginRequest } | null}
 */
export function compileLogin (options, identities) {
  if (!options.login) {
    if (options.loginHeaders?.length) throw invalidOption('--login-header', 'needs --login (the request it goes on)')
    return null
  }
  const spec = parseLoginSpec(options.login, '--login')
  const rules = identities.rules('--login')
  const target = compileTextTemplate(spec.target, rules)
  const json = spec.body !== null && spec.json ? compileJsonTemplate(spec.body, rules) : null
  const form = spec.body !== null && !spec.json
    ? spec.body.split('&').map((pair) => {
      const at = pair.indexOf('=')
      return /** @type {const} */ ([decodeURIComponent(pair.slice(0, at)), compileTextTemplate(pair.slice(at + 1), rules)])
    })
    : null
  const headers = parseHeaders(options.loginHeaders, '--login-header')
    .map(([k, v]) => /** @type {const} */ ([k, compileTextTemplate(v, identities.rules('--login-header'))]))
  const typed = headers.some(([name]) => name.toLowerCase() === 'content-type')
  const contentType = json ? 'application/json' : form ? 'application/x-www-form-urlencoded' : null
  return {
    text: `${spec.method} ${spec.target}`,
    render (i) {
      const lookup = identities.lookupOf(i)
      /** @type {Record<string, string>} */
      const sent = {}
      if (contentType !== null && !typed) sent['content-type'] = contentType
      for (const [name, value] of headers) sent[name] = String(value.render(lookup))
      const formPairs = () => /** @type {[string, string][]} */ (form?.map(([k, v]) => [k, String(v.render(lookup))]))
      const body = json ? JSON.stringify(json.render(lookup)) : form ? new URLSearchParams(formPairs()).toString() : null
      return { method: spec.method, url: String(target.render(lookup)), headers: sent, body }
    }
  }
}

/** How long the look at the server waits for its login. */
const FIRST_LOGIN_TIMEOUT_MS = 5000

/**
 * Client 0's --login for a look at the server made without the swarm (a run's, --workers'): its
 * cookies and fields, or none when it failed (the look then goes without, as a client would).
 * @param {import('../sim-options.js').SimOptions} options
 * @param {NodeJS.ProcessEnv} [env]
 * @returns {Promise<{ jar: import('./cookie-jar.js').Jar, fields: Record<string, unknown> | null }>}
 */
export async function firstLogin (options, env) {
  const identities = compileIdentities(options, { simId: options.id ?? 'inspect', env })
  const flags = compileLogin(options, identities)
  if (flags === null) return { jar: null, fields: null }
  // The login's HTTP client loads with the first --login (a process loads only what it uses).
  const { createLoginHttp, loginCertificateStop } = await import('./login-http.js')
  const http = createLoginHttp({ urls: options.urls, trust: options, addresses: options.sourceAddresses ?? [], timeoutMs: FIRST_LOGIN_TIMEOUT_MS })
  const cookies = identities.of(0).cookies
  const holder = { jar: cookies ? seedCookies(null, cookies) : null }
  try {
    const answer = await http.send(0, holder, flags.render(0))
    if (!answer.ok) return { jar: null, fields: null }
    const fields = answer.text.trimStart().startsWith('{') ? answer.json() : null
    return { jar: holder.jar, fields: fields !== null && typeof fields === 'object' ? /** @type {Record<string, unknown>} */ (fields) : null }
  } catch (error) {
    // A login server whose certificate this trust refuses fails every client alike: stop before the swarm.
    const stop = loginCertificateStop(error, flags.text)
    if (stop) throw stop
    return { jar: null, fields: null }
  } finally {
    await http.close()
  }
}
