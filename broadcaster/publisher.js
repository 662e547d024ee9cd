/**
 * `--publish 'METHOD URL'`: each message of a round is an HTTP request to the app's own API
 * (a pub/sub server's publish endpoint, an app's "announce" route), sent over keep-alive
 * connections. The URL, the `--publish-header` values and the body (`--message`, else
 * ioswarm's own message shape) are templates with the message's placeholders; headers may
 * also read `{{env.NAME}}`, so a secret stays off command lines and out of result files.
 * The body's `{{sentAt}}` is read just before the request leaves. The answer's status is
 * returned, never thrown: a load test counts failures. The one exception is the first
 * answer of a run being 401, 403 or 404: no later message can fare better, so the run
 * stops with the reason (exit 2).
 */
import { createRequire } from 'node:module'
import { wallMs } from '../lib/measure/clock.js'
import { CODES, IoswarmError, invalidOption } from '../lib/errors.js'
import { broadcastMessage, broadcastRoom, makePayload } from '../lib/protocol.js'
import { compileTextTemplate } from '../lib/input/template.js'
import { parseHeaders } from '../lib/values/option-values.js'
import { PLACEHOLDERS } from './template.js'
import { pusherSigner } from './publish-sign.js'

const require = createRequire(import.meta.url)

/** Answers that no later request of the same run can change: the run stops at the first. */
const REFUSALS = /** @type {Record<number, string>} */ ({
  401: 'the publish API wants credentials: give them with --publish-header \'Authorization: Bearer {{env.TOKEN}}\' (or --publish-sign)',
  403: 'the publish API refused the credentials given (--publish-header, --publish-sign)',
  404: 'nothing answers at that path: check the --publish URL (its {{room}} part too)'
})
const METHODS = ['POST', 'PUT', 'PATCH', 'GET', 'DELETE']
/** A request that has not answered in this long is an error of its message, not a hang of the run. */
const REQUEST_TIMEOUT_MS = 30000

/**
 * @typedef {import('./senders.js').Sender} Sender
 * @typedef {import('./template.js').MessageTemplate} MessageTemplate
 * @typedef {import('../lib/input/template.js').Template} Template
 * @typedef {object} PublishSpec `--publish` and its companions, checked
 * @property {string} method
 * @property {string} text the `--publish` value as given
 * @property {Template} url
 * @property {[string, Template][]} headers
 * @property {((method: string, url: URL, body: string) => URL) | null} sign
 */

/**
 * Checks `--publish`, `--publish-header` and `--publish-sign` once, before anything starts.
 * @param {{ publish: string, headers?: unknown, sign?: string | null }} input
 * @returns {PublishSpec}
 */
export function compilePublish ({ publish, headers, sign }) {
  const match = /^\s*([A-Za-z]+)\s+(\S+)\s*$/.exec(String(publish))
  const method = match?.[1].toUpperCase() ?? ''
  if (!match || !METHODS.includes(method)) {
    const example = "such as 'POST http://localhost:8080/pub/{{room}}'"
    throw invalidOption('--publish', `must be 'METHOD URL' with METHOD one of ${METHODS.join(', ')}, ${example}, got ${JSON.stringify(publish)}`)
  }
  const url = compileTextTemplate(match[2], { flag: '--publish', names: PLACEHOLDERS, env: true })
  const probe = String(url.render((name) => (name.startsWith('env.') ? 'x' : '1')))
  if (!/^https?:\/\/[^/]/.test(probe) || !URL.canParse(probe)) {
    throw invalidOption('--publish', `must have an http:// or https:// URL with a host, got ${JSON.stringify(match[2])}`)
  }
  return {
    method,
    text: String(publish).trim(),
    url,
    headers: parseHeaders(headers, '--publish-header')
      .map(([name, value]) => [name, compileTextTemplate(value, { flag: '--publish-header', names: PLACEHOLDERS, env: true })]),
    sign: sign ? pusherSigner(sign) : null
  }
}

/**
 * A sender that publishes each message by one HTTP request.
 * @param {PublishSpec} spec
 * @param {MessageTemplate | null} template the body (--message); null: ioswarm's own message shape
 * @returns {Sender}
 */
export function publishSender (spec, template) {
  const undici = /** @type {typeof import('undici')} */ (require('undici'))
  // Keep-alive connections, as many as the schedule needs at once: a slow answer never delays the next message.
  const agent = new undici.Agent({ connect: { timeout: 10000 } })
  let answered = 0
  return {
    async send (body) {
      const id = `${body.round}.${body.seq}`
      const room = broadcastRoom(body)
      const payload = () => makePayload(body.size)
      /** @param {string} name */
      const value = (name) => (name.startsWith('env.') ? process.env[name.slice(4)] : name === 'payload' ? payload() : { id, room, ...body }[name])
      const url = new URL(String(spec.url.render((name) => encodeURIComponent(String(value(name) ?? '')))))
      const headers = Object.fromEntries(spec.headers.map(([name, t]) => [name.toLowerCase(), String(t.render((n) => value(n) ?? ''))]))
      const sentAt = wallMs()
      const message = template
        ? template.render({
          id, batch: body.batch ?? '', round: body.round, seq: body.seq, sentAt, payload: template.placeholders.includes('payload') ? payload() : '', room
        })
        : broadcastMessage({ id, batch: body.batch, round: body.round, seq: body.seq, sentAt, room, payload: payload() })
      const hasBody = spec.method !== 'GET' && spec.method !== 'DELETE'
      const text = hasBody ? JSON.stringify(message) : undefined
      if (hasBody) headers['content-type'] ??= 'application/json'
      const target = spec.sign && text !== undefined ? spec.sign(spec.method, url, text) : url
      let response
      try {
        const method = /** @type {'POST'} */ (spec.method)
        const timeouts = { headersTimeout: REQUEST_TIMEOUT_MS, bodyTimeout: REQUEST_TIMEOUT_MS }
        response = await undici.request(target, { method, headers, body: text, dispatcher: agent, ...timeouts })
      } catch (error) {
        const e = /** @type {Error & { code?: string, cause?: { code?: string } }} */ (error)
        throw new IoswarmError(CODES.BROADCAST, `${spec.method} ${url.origin}${url.pathname} failed: ${e.cause?.code ?? e.code ?? e.message}`)
      }
      const status = response.statusCode
      const ok = status >= 200 && status < 300
      // A refusal's body, as words: an HTML error page's markup and line breaks dropped.
      const answer = ok
        ? (await response.body.dump(), '')
        : (await response.body.text()).slice(0, 2000).replace(/<[^>]*>/g, ' ').replace(/\s+/g, ' ').trim().slice(0, 160)
      if (answered++ === 0 && REFUSALS[status]) {
        const said = answer ? ` (it said: ${answer})` : ''
        const endpoint = `${spec.method} ${url.origin}${url.pathname}`
        throw new IoswarmError(CODES.PUBLISH_REFUSED, `${endpoint} answered HTTP ${status} to the first message: ${REFUSALS[status]}${said}`)
      }
      const error = ok ? {} : { error: `HTTP ${status}${answer ? `: ${answer}` : ''}` }
      return [{ id, sentAt, recipients: null, status, ...(room === null ? {} : { room }), ...error }]
    },
    async close () {
      await agent.close()
    }
  }
}

/**
 * What a run's publish requests did, apart from what their messages did once delivered:
 * requests, answers by status, requests that got no answer, and their own latency (the
 * request's round trip, from the moment it left to its answer's end).
 * @param {PublishSpec} spec
 * @param {{ status: number | null, requestMs: number | null, error: string | null }[]} messages
 * @returns {import('../lib/schema/result-schema.js').PublishSummary}
 */
export function summarizePublish (spec, messages) {
  /** @type {Record<string, number>} */
  const byStatus = {}
  /** @type {number[]} */
  const times = []
  for (const m of messages) {
    if (m.status === null) continue
    byStatus[m.status] = (byStatus[m.status] ?? 0) + 1
    if (m.requestMs !== null) times.push(m.requestMs)
  }
  times.sort((a, b) => a - b)
  /** @param {number} q */
  const at = (q) => (times.length === 0 ? null : times[Math.min(times.length - 1, Math.ceil(q * times.length) - 1)])
  return {
    request: spec.text,
    requests: messages.length,
    ok: Object.entries(byStatus).reduce((sum, [status, n]) => sum + (Number(status) < 300 ? n : 0), 0),
    byStatus,
    unanswered: messages.filter((m) => m.status === null).length,
    requestMs: { p50: at(0.5), p99: at(0.99), max: times.at(-1) ?? null }
  }
}
