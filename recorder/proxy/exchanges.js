/**
 * The recording proxy's exchanges, in the shape the HAR reader gives (har.js' HttpExchange), so
 * that one model (sessions, packets, steps) is built from either: each request with its
 * headers and cookies as the target received them, its answer, and a WebSocket's frames. Bodies
 * are kept as the bytes that passed and read (inflated when the answer was compressed, text
 * when their type is text) only when the recording is taken, off the path of the traffic.
 */
import zlib from 'node:zlib'

/** Types whose bodies a HAR keeps as text. */
const TEXT_TYPE = /^(text\/|application\/(json|javascript|x-www-form-urlencoded|xml)|[^;]*\+json)/i

/**
 * @typedef {import('../har.js').HttpExchange} HttpExchange
 * @typedef {import('../har.js').NameValue} NameValue
 * @typedef {object} Capture an exchange while it passes
 * @property {HttpExchange} exchange
 * @property {Buffer[]} requestChunks
 * @property {Buffer[]} responseChunks
 * @property {string | null} responseType
 * @property {string | null} responseEncoding
 * @property {(() => string | null) | null} wsFailure why a WebSocket's frames could not be read
 */

/** Now, in epoch milliseconds with sub-millisecond steps (frames close together keep their order and gaps). */
export const nowMs = () => performance.timeOrigin + performance.now()

/**
 * A request as it leaves for the target.
 * @param {string} method
 * @param {URL} url at the target
 * @param {string[]} rawHeaders as forwarded
 * @param {boolean} webSocket
 * @returns {Capture}
 */
export function startCapture (method, url, rawHeaders, webSocket) {
  const requestHeaders = pairsOf(rawHeaders)
  /** @type {HttpExchange} */
  const exchange = {
    method,
    url,
    startMs: nowMs(),
    endMs: 0,
    requestHeaders,
    requestCookies: cookiesOf(requestHeaders),
    requestBody: null,
    requestType: valueOf(requestHeaders, 'content-type'),
    status: 0,
    responseHeaders: [],
    responseCookies: [],
    responseBody: null,
    frames: webSocket ? [] : null,
    framesMissing: false
  }
  return { exchange, requestChunks: [], responseChunks: [], responseType: null, responseEncoding: null, wsFailure: null }
}

/**
 * The target's answer (its head).
 * @param {Capture} capture
 * @param {number} status
 * @param {string[]} rawHeaders
 */
export function answered (capture, status, rawHeaders) {
  const headers = pairsOf(rawHeaders)
  capture.exchange.status = status
  capture.exchange.responseHeaders = headers
  capture.exchange.responseCookies = headers.filter((h) => h.name.toLowerCase() === 'set-cookie').map((h) => cookieOf(h.value.split(';')[0]))
  capture.responseType = valueOf(headers, 'content-type')
  capture.responseEncoding = valueOf(headers, 'content-encoding')
}

/**
 * The exchange as a HAR would hold it, bodies read.
 * @param {Capture} capture
 * @returns {HttpExchange}
 */
export function finishedExchange (capture) {
  const { exchange } = capture
  const request = Buffer.concat(capture.requestChunks)
  const response = capture.responseChunks.length === 0 ? null : inflated(Buffer.concat(capture.responseChunks), capture.responseEncoding)
  return {
    ...exchange,
    frames: exchange.frames === null ? null : [...exchange.frames],
    endMs: exchange.endMs || exchange.startMs,
    requestBody: request.length === 0 ? null : request.toString('utf8'),
    responseBody: response === null ? null : TEXT_TYPE.test(capture.responseType ?? '') ? response.toString('utf8') : response
  }
}

/**
 * A body as sent before its Content-Encoding; a body that does not inflate is kept as it came.
 * @param {Buffer} body
 * @param {string | null} encoding
 */
function inflated (body, encoding) {
  try {
    if (encoding === 'gzip' || encoding === 'x-gzip') return zlib.gunzipSync(body)
    if (encoding === 'deflate') return zlib.inflateSync(body)
    if (encoding === 'br') return zlib.brotliDecompressSync(body)
  } catch {}
  return body
}

/**
 * Node's raw header list [name, value, name, value, …] as name/value pairs.
 * @param {string[]} raw
 * @returns {NameValue[]}
 */
export function pairsOf (raw) {
  const pairs = []
  for (let k = 0; k + 1 < raw.length; k += 2) pairs.push({ name: raw[k], value: raw[k + 1] })
  return pairs
}

/** @param {NameValue[]} headers @param {string} name */
function valueOf (headers, name) {
  return headers.find((h) => h.name.toLowerCase() === name)?.value ?? null
}

/**
 * The cookies of a request's Cookie headers.
 * @param {NameValue[]} headers
 */
function cookiesOf (headers) {
  return headers.filter((h) => h.name.toLowerCase() === 'cookie').flatMap((h) => h.value.split(';')).filter((c) => c.includes('=')).map(cookieOf)
}

/** "name=value" → a pair. @param {string} text */
function cookieOf (text) {
  const at = text.indexOf('=')
  return { name: text.slice(0, at).trim(), value: text.slice(at + 1).trim() }
}
