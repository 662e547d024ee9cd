/**
 * The look before a swarm of Server-Sent Events subscribers: one GET of the stream with the
 * first client's identity, as its clients will send it, read up to the answer's head and
 * dropped. What every client would meet stops here, before any starts (exit 2): nothing at the
 * path (HTTP 404), an answer that is no event stream (a page, JSON), a certificate no client
 * trusts, or a refusal (401, 403) of an identity every client shares. A server still starting
 * (refused, no answer, 404) gets --wait-for-server's time.
 */
import http from 'node:http'
import https from 'node:https'
import { setTimeout as sleep } from 'node:timers/promises'
import { CODES, IoswarmError } from '../../lib/errors.js'
import { monotonicMs } from '../../lib/measure/clock.js'
import { certificateHint, tlsTrust } from '../../lib/input/tls-trust.js'
import { sseServerInfo } from '../sse-options.js'

/** How long the look waits for the answer's head. */
const LOOK_TIMEOUT_MS = 10000
/** Between two looks while --wait-for-server waits for a server still starting. */
const WAIT_RETRY_MS = 1000

/**
 * @typedef {{ status: number, type: string } | { error: string, code: string | undefined }} SseAnswer
 */

/**
 * One GET of the stream: its status and content type, or the error that stopped it.
 * @param {string} url
 * @param {Record<string, string>} headers
 * @param {import('../../lib/input/tls-trust.js').TlsTrust | null} trust
 * @param {number} timeoutMs
 * @returns {Promise<SseAnswer>}
 */
export function lookAtStream (url, headers, trust, timeoutMs = LOOK_TIMEOUT_MS) {
  const request = url.startsWith('https:') ? https.request : http.request
  return new Promise((resolve) => {
    const req = request(url, { headers: { ...headers, Accept: 'text/event-stream', 'Cache-Control': 'no-cache' }, agent: false, ...trust }, (res) => {
      resolve({ status: res.statusCode ?? 0, type: String(res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase() })
      req.destroy()
    })
    req.setTimeout(timeoutMs, () => req.destroy(Object.assign(new Error(`no answer within ${timeoutMs / 1000} s`), { code: 'ETIMEDOUT' })))
    req.on('error', (/** @type {Error & { code?: string }} */ error) => resolve({ error: error.code ?? error.message, code: error.code }))
    req.end()
  })
}

/**
 * Looks at the stream (again while --wait-for-server allows) and stops on what every client would meet.
 * @param {import('../sim-options.js').SimOptions} options
 * @param {import('../sessions/identity.js').ClientIdentity} identity the first client's
 * @param {{ shared: () => boolean, signal?: AbortSignal, timeoutMs?: number }} how shared: whether every client sends this identity
 * @returns {Promise<import('./inspect.js').ServerInfo>}
 */
export async function inspectStream (options, identity, { shared, signal, timeoutMs }) {
  const url = new URL(options.url)
  for (const [key, value] of Object.entries(identity.query ?? {})) url.searchParams.append(key, value)
  const cookies = Object.entries(identity.cookies ?? {}).map(([name, value]) => `${name}=${value}`).join('; ')
  const headers = cookies === '' ? { ...identity.headers } : { ...identity.headers, Cookie: cookies }
  const trust = tlsTrust(options)
  const deadline = monotonicMs() + (options.waitForServerMs ?? 0)
  let answer = await lookAtStream(url.href, headers, trust, timeoutMs)
  while (stillStarting(answer) && monotonicMs() < deadline && !signal?.aborted) {
    await sleep(WAIT_RETRY_MS, undefined, { signal }).catch(() => {})
    answer = await lookAtStream(url.href, headers, trust, timeoutMs)
  }
  const info = sseServerInfo(options)
  const at = `${options.url} `
  if ('error' in answer) {
    const hint = certificateHint(answer.code)
    const why = `${at}failed TLS: ${answer.error}: ${hint}; no client can connect with this trust, so nothing was started`
    if (hint !== '') throw new IoswarmError(CODES.FIRST_CONTACT, why)
    return { ...info, handshakeError: answer.error, diagnosis: `the look at the stream failed: ${answer.error}` }
  }
  if (answer.status === 404) {
    throw new IoswarmError(CODES.NO_ENGINE_IO, `${at}answered HTTP 404: no event stream at that path: nothing was started; check --url`)
  }
  if (answer.status === 401 || answer.status === 403) {
    const refused = `${at}answered HTTP ${answer.status} to the first client`
    if (shared()) {
      throw new IoswarmError(CODES.FIRST_CONTACT, `${refused}: every client sends this same identity, so none can connect and nothing was started; ` +
        'give what the server wants (--header, --query, --cookie or --login)')
    }
    return { ...info, handshakeError: `HTTP ${answer.status}`, diagnosis: refused }
  }
  if (answer.status !== 200) return { ...info, handshakeError: `HTTP ${answer.status}`, diagnosis: `${at}answered HTTP ${answer.status} to the first client` }
  if (answer.type !== 'text/event-stream') {
    const type = answer.type === '' ? 'no content type' : `content type ${answer.type}`
    throw new IoswarmError(CODES.FIRST_CONTACT,
      `${at}answered 200 with ${type}, not text/event-stream: it is no Server-Sent Events stream, so nothing was started; check --url (and --protocol)`)
  }
  return info
}

/**
 * A server still starting: refused, silent, or not serving the path yet.
 * @param {SseAnswer} answer
 */
function stillStarting (answer) {
  return 'error' in answer ? certificateHint(answer.code) === '' : answer.status === 404 || answer.status >= 500
}
