/**
 * What a plain WebSocket message is to the recorder: a text frame that is a JSON object or
 * array is its parsed value (its id and send time then come from --id-field and
 * --sent-at-field), other text is the string itself, and a binary frame is its bytes, or its
 * parsed value when the bytes are JSON (servers that send JSON as binary frames). Messages
 * without an id are told apart by their content (the recorder hashes it). `--match` keeps
 * only JSON messages whose fields have the given values; the others are labelled with what
 * they were, for the unmeasured count. Pure functions, run once per distinct frame (the pool
 * caches the result for the clients that get the same frame).
 */
import { fieldGetter } from '../../../lib/input/fields.js'
import { WEBSOCKET_EVENT } from '../../../lib/values/option-values.js'

/**
 * A decoded frame: `args` is what the swarm records (one value), null when --match leaves it
 * out; `event` is WEBSOCKET_EVENT, or the label it is counted under when left out.
 * @typedef {{ event: string, args: unknown[] | null }} PlainDecoded
 * @typedef {(value: unknown) => string | null} Matcher null when the value matches, else its label
 */

/** Longest field value kept in a label (labels are counted by reasons, bounded there too). */
const MAX_LABEL_VALUE = 60

/**
 * The --match filter: values of one field are alternatives, different fields must all match.
 * @param {[string, string][] | undefined} pairs [dot path, value]
 * @returns {Matcher | null} null when there is no filter
 */
export function compileMatcher (pairs) {
  if (!pairs || pairs.length === 0) return null
  /** @type {Map<string, Set<string>>} */
  const byPath = new Map()
  for (const [path, value] of pairs) {
    const values = byPath.get(path) ?? new Set()
    values.add(value)
    byPath.set(path, values)
  }
  const rules = [...byPath].map(([path, values]) => ({ path, get: fieldGetter(path), values }))
  return (value) => {
    for (const rule of rules) {
      const field = rule.get(value)
      if (field === undefined || field === null || typeof field === 'object' || !rule.values.has(String(field))) {
        return `${rule.path}=${field === undefined ? '(none)' : String(typeof field === 'object' ? JSON.stringify(field) : field).slice(0, MAX_LABEL_VALUE)}`
      }
    }
    return null
  }
}

/**
 * JSON.parse for text that is a JSON object or array, else undefined.
 * @param {string} text
 * @returns {unknown}
 */
function parseJsonValue (text) {
  const first = text.charCodeAt(0)
  const start = first === 123 || first === 91 ? text : text.trimStart() // '{' or '['
  const c = start.charCodeAt(0)
  if (c !== 123 && c !== 91) return undefined
  try {
    return JSON.parse(start)
  } catch {
    return undefined
  }
}

/**
 * @param {unknown} value
 * @param {string} kind 'text' or 'binary': the label of a value --match cannot read
 * @param {Matcher | null} match
 * @returns {PlainDecoded}
 */
function measured (value, kind, match) {
  if (match === null) return { event: WEBSOCKET_EVENT, args: [value] }
  const label = value !== null && typeof value === 'object' && !Buffer.isBuffer(value) ? match(value) : kind
  return label === null ? { event: WEBSOCKET_EVENT, args: [value] } : { event: label, args: null }
}

/**
 * A text message.
 * @param {string} text
 * @param {Matcher | null} match
 * @returns {PlainDecoded}
 */
export function decodeText (text, match) {
  const value = parseJsonValue(text)
  return measured(value === undefined ? text : value, 'text', match)
}

/**
 * A binary message (the bytes are kept as they are: the caller passes a copy it owns).
 * @param {Buffer} bytes
 * @param {Matcher | null} match
 * @returns {PlainDecoded}
 */
export function decodeBinary (bytes, match) {
  const first = bytes[0]
  const value = first === 123 || first === 91 ? parseJsonValue(bytes.toString('utf8')) : undefined
  return measured(value === undefined ? bytes : value, 'binary', match)
}

/**
 * Decodes a frame, data[start, end), and remembers it in `cache` for the clients that get the
 * same frame (text and binary frames in caches of their own).
 * @param {import('../../wire/frame-cache.js').FrameCache} cache
 * @param {Buffer} data
 * @param {number} start
 * @param {number} end
 * @param {boolean} isBinary
 * @param {Matcher | null} match
 * @returns {PlainDecoded}
 */
export function decodeInto (cache, data, start, end, isBinary, match) {
  if (!isBinary) {
    const text = data.toString('utf8', start, end)
    const decoded = decodeText(text, match)
    cache.add(text, decoded)
    return decoded
  }
  // The cache and every client share one copy; the recorder only reads it.
  const decoded = decodeBinary(Buffer.from(data.subarray(start, end)), match)
  cache.addBytes(data, start, end, decoded)
  return decoded
}
