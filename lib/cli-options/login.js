/**
 * An HTTP login before each client connects (issue 24): `--login 'POST /login {"user":"u{{i}}"}'`
 * and its headers (`--login-header`). The text is checked here (method, path or URL, body form);
 * its templates are checked by the simulator's normaliser, which knows the feeder's fields
 * (simulator/sessions/login.js compileLogin).
 */
import { invalidOption } from '../errors.js'
import { defineOptions } from './define.js'
import { parseHeaders } from './scenario.js'

/** Methods a login may use. */
export const LOGIN_METHODS = Object.freeze(['POST', 'GET', 'PUT', 'PATCH'])

/**
 * @typedef {object} LoginSpec
 * @property {string} method
 * @property {string} target a path on the server (`/login`) or an absolute http(s) URL, a text template
 * @property {string | null} body a JSON template (starts with { or [) or a form `a=b&c={{i}}` (values are templates)
 * @property {boolean} json the body is JSON
 */

/**
 * `--login 'METHOD TARGET [BODY]'` → its parts, checked (templates are checked later).
 * @param {string} text
 * @param {string} flag
 * @returns {LoginSpec}
 */
export function parseLoginSpec (text, flag) {
  const usage = 'must be \'METHOD PATH-OR-URL [BODY]\', a JSON or form body: \'POST /login {"user":"u{{i}}","password":"{{row.password}}"}\' or \'POST /login user=u{{i}}&password={{row.password}}\''
  const match = /^\s*(\S+)\s+(\S+)(?:\s+([\s\S]*\S))?\s*$/.exec(text)
  if (!match) throw invalidOption(flag, `${usage}, got ${JSON.stringify(text)}`)
  const [, method, target, body = null] = match
  if (!LOGIN_METHODS.includes(method)) {
    throw invalidOption(flag, `must start with an HTTP method (${LOGIN_METHODS.join(', ')}), got ${JSON.stringify(method)}: ${usage}`)
  }
  if (!target.startsWith('/') || target.startsWith('//')) {
    if (!/^https?:\/\/[^/\s]+/i.test(target)) {
      throw invalidOption(flag, `has ${JSON.stringify(target)}: a path on the server starts with / ('POST /login …'); a login on another origin needs its scheme ('POST https://auth.example.com/login …')`)
    }
    try {
      // eslint-disable-next-line no-new
      new URL(target.replace(/\{\{[^}]*\}\}/g, 'x'))
    } catch {
      throw invalidOption(flag, `has ${JSON.stringify(target)}, which is not a URL`)
    }
  }
  if (body !== null && method === 'GET') throw invalidOption(flag, 'has a body with GET: put the fields in the query (GET /login?user=u{{i}}), or use POST')
  const json = body !== null && /^[{[]/.test(body)
  if (body !== null && !json && !/^[^=&\s]+=[^&\s]*(&[^=&\s]+=[^&\s]*)*$/.test(body)) {
    throw invalidOption(flag, `has a body that is neither JSON ({…}) nor a form (a=b&c=d): ${JSON.stringify(body)}`)
  }
  return { method, target, body, json }
}

/** @param {unknown} v */
const optionalText = (v) => (v === undefined || v === null || v === '' ? null : String(v).trim())

export const LOGIN_OPTIONS = defineOptions([
  {
    name: 'login',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    describe: 'Log each client in over HTTP before its first connect (spread by the ramp) and again when a reconnect is refused with HTTP 401/403: ' +
      '\'POST /login {"user":"u{{i}}","password":"{{row.password}}"}\' (a JSON body) or \'POST /login user=u{{i}}&password={{row.password}}\' (a form), ' +
      'to a path on the server or an absolute URL. The answer\'s cookies go into the client\'s jar (a session cookie then rides on every request and the upgrade); ' +
      'the fields of a JSON answer are {{login.FIELD}} in --auth, --query, --header, --join, --emit (ctx.login in hooks). Placeholders: those of --auth. ' +
      'Login time (p50/p99/max) and failures by HTTP status are measured; a login that fails for every client ends the run (exit 1)',
    parse: (v, flag) => {
      const text = optionalText(v)
      if (text !== null) parseLoginSpec(text, flag)
      return text
    }
  },
  {
    name: 'login-header',
    to: 'loginHeaders',
    type: 'string',
    array: true,
    commands: ['simulate'],
    passOn: true,
    describe: 'A header on each --login request, value a template (repeatable): --login-header \'X-Requested-With: XMLHttpRequest\' --login-header \'Authorization: Basic {{env.BASIC}}\'. ' +
      'Content-Type follows the body (JSON or form) unless given; the client\'s cookies are sent as a browser would',
    parse: (v, flag) => parseHeaders(v, flag).map(([name, value]) => `${name}: ${value}`)
  }
])
