/**
 * Reads a HAR file (HTTP Archive 1.1/1.2, as Chrome's and Firefox's devtools export it) into
 * the connections a recording is made of: WebSocket connections with their frames, Engine.IO
 * long-polling requests with their bodies, and the other HTTP requests (a login). Times are
 * milliseconds since the epoch.
 *
 * Chrome writes a WebSocket as one entry of `_resourceType: "websocket"` (status 101) with its
 * frames in `_webSocketMessages` (`{type: "send"|"receive", time, opcode, data}`, time in
 * seconds; opcode 1 text, 2 binary as base64). Firefox writes the 101 entry without its frames,
 * and bodies of polling requests as any other request's (`postData.text`, `response.content.text`,
 * base64 when `content.encoding` says so).
 */
import { CODES, IoswarmError } from '../lib/errors.js'

/**
 * @typedef {{ name: string, value: string }} NameValue
 * @typedef {object} WsFrame
 * @property {'send' | 'receive'} dir
 * @property {number} atMs epoch milliseconds
 * @property {string | Buffer} data text, or the bytes of a binary frame
 * @typedef {object} HttpExchange one request and its answer
 * @property {string} method
 * @property {URL} url
 * @property {number} startMs
 * @property {number} endMs
 * @property {NameValue[]} requestHeaders
 * @property {NameValue[]} requestCookies
 * @property {string | null} requestBody
 * @property {string | null} requestType the request's content type
 * @property {number} status
 * @property {NameValue[]} responseHeaders
 * @property {NameValue[]} responseCookies
 * @property {string | Buffer | null} responseBody null: not in the HAR
 * @property {WsFrame[] | null} frames a WebSocket's frames (null: not a WebSocket; [] with `framesMissing`: none recorded)
 * @property {boolean} framesMissing a WebSocket entry whose writer kept no frames (Firefox)
 * @typedef {object} HarRecording
 * @property {string} creator who wrote the HAR: 'WebInspector 537.36', 'Firefox 128.0'
 * @property {HttpExchange[]} exchanges in start order
 */

/**
 * A usage error about the recording (exit 2).
 * @param {string} message
 * @param {string} [flag] the flag that gave the recording
 */
export function badRecording (message, flag = '--har') {
  return new IoswarmError(CODES.INPUT, message, { flag })
}

/**
 * Parses a HAR's text.
 * @param {string} text
 * @param {string} name the file's name, for errors
 * @returns {HarRecording}
 */
export function readHar (text, name) {
  let har
  try {
    har = JSON.parse(text)
  } catch (error) {
    const truncated = !text.trimEnd().endsWith('}')
    const why = truncated ? 'it ends in the middle: truncated?' : /** @type {Error} */ (error).message
    throw badRecording(`${name} is not a whole HAR file (${why}); export it again from the browser's Network panel`)
  }
  const entries = har?.log?.entries
  if (!Array.isArray(entries)) throw badRecording(`${name} has no log.entries: a HAR file is {"log": {"entries": [...]}}`)
  const creator = [har.log.creator?.name, har.log.creator?.version].filter(Boolean).join(' ') || 'unknown'
  const exchanges = []
  for (let k = 0; k < entries.length; k++) {
    const exchange = readEntry(entries[k])
    if (exchange === null) throw badRecording(`${name}: entry ${k} has no request.url or startedDateTime; the HAR is damaged`)
    exchanges.push(exchange)
  }
  exchanges.sort((a, b) => a.startMs - b.startMs)
  return { creator, exchanges }
}

/**
 * @param {any} entry
 * @returns {HttpExchange | null}
 */
function readEntry (entry) {
  const request = entry?.request
  const response = entry?.response ?? {}
  const startMs = Date.parse(entry?.startedDateTime)
  if (typeof request?.url !== 'string' || !Number.isFinite(startMs)) return null
  let url
  try {
    url = new URL(request.url)
  } catch {
    return null
  }
  const durationMs = Number(entry.time)
  const isWebSocket = entry._resourceType === 'websocket' || response.status === 101 || /^wss?:$/.test(url.protocol)
  const messages = Array.isArray(entry._webSocketMessages) ? entry._webSocketMessages : null
  return {
    method: String(request.method || 'GET'),
    url,
    startMs,
    endMs: startMs + (Number.isFinite(durationMs) && durationMs > 0 ? durationMs : 0),
    requestHeaders: pairs(request.headers),
    requestCookies: pairs(request.cookies),
    requestBody: typeof request.postData?.text === 'string' && request.postData.text !== '' ? request.postData.text : null,
    requestType: request.postData?.mimeType ?? null,
    status: Number(response.status) || 0,
    responseHeaders: pairs(response.headers),
    responseCookies: pairs(response.cookies),
    responseBody: bodyOf(response.content),
    frames: isWebSocket ? framesOf(messages) : null,
    framesMissing: isWebSocket && messages === null
  }
}

/**
 * @param {unknown[] | null} messages
 * @returns {WsFrame[]}
 */
function framesOf (messages) {
  /** @type {WsFrame[]} */
  const frames = []
  for (const m of messages ?? []) {
    const frame = frameOf(m)
    if (frame !== null) frames.push(frame)
  }
  return frames
}

/**
 * A message of `_webSocketMessages`: control frames (close, ping) are left out. Chrome writes
 * `time` as epoch seconds; a time below a year 2001 epoch is a monotonic clock's, kept as is
 * (gaps between frames still hold).
 * @param {any} message
 * @returns {WsFrame | null}
 */
function frameOf (message) {
  const opcode = Number(message?.opcode ?? 1)
  if (opcode !== 1 && opcode !== 2) return null
  const dir = message.type === 'send' ? 'send' : message.type === 'receive' ? 'receive' : null
  if (dir === null) return null
  const data = String(message.data ?? '')
  return { dir, atMs: Number(message.time) * 1000, data: opcode === 2 ? Buffer.from(data, 'base64') : data }
}

/**
 * A response's body: text, bytes when base64, null when the writer left it out.
 * @param {any} content
 * @returns {string | Buffer | null}
 */
function bodyOf (content) {
  if (typeof content?.text !== 'string') return null
  return content.encoding === 'base64' ? Buffer.from(content.text, 'base64') : content.text
}

/**
 * HAR name/value lists; Chrome's headers are such lists too.
 * @param {unknown} list
 * @returns {NameValue[]}
 */
function pairs (list) {
  if (!Array.isArray(list)) return []
  return list.filter((p) => p && typeof p.name === 'string').map((p) => ({ name: p.name, value: String(p.value ?? '') }))
}

/**
 * A header's value (case-insensitive name), or null.
 * @param {NameValue[]} headers
 * @param {string} name
 */
export function headerOf (headers, name) {
  const lower = name.toLowerCase()
  return headers.find((h) => h.name.toLowerCase() === lower)?.value ?? null
}
