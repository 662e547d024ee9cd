/**
 * An HTTP login before each client connects (issue 24): `--login 'POST /login {"user":"u{{i}}"}'`
 * and its headers (`--login-header`). The text is checked here (method, path or URL, body form);
 * its templates are checked by the simulator's normaliser, which knows the feeder's fields
 * (simulator/sessions/login.js compileLogin).
 */
import { defineOptions } from '../define.js'
import { parseHeaders, parseLoginSpec } from '../../values/option-values.js'

/** @param {unknown} v */
const optionalText = (v) => (v === undefined || v === null || v === '' ? null : String(v).trim())

export const LOGIN_OPTIONS = defineOptions([
  {
    name: 'login',
    group: 'Identity and sessions',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    describe: 'Log each client in over HTTP before it connects: \'POST /login {"user":"u{{i}}","password":"{{row.password}}"}\'',
    details: 'Log each client in over HTTP before its first connect (spread by the ramp) and again when a reconnect is refused with HTTP 401/403: ' +
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
    group: 'Identity and sessions',
    to: 'loginHeaders',
    type: 'string',
    array: true,
    commands: ['simulate'],
    passOn: true,
    describe: 'A header on each --login request, a template (repeatable): \'X-Requested-With: XMLHttpRequest\'',
    details: 'A header on each --login request, value a template (repeatable): --login-header \'X-Requested-With: XMLHttpRequest\' --login-header \'Authorization: Basic {{env.BASIC}}\'. ' +
      'Content-Type follows the body (JSON or form) unless given; the client\'s cookies are sent as a browser would',
    parse: (v, flag) => parseHeaders(v, flag).map(([name, value]) => `${name}: ${value}`)
  }
])
