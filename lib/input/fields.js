/**
 * Where a message's identity, send time and target room are in a user's own message shape
 * (`--id-field`, `--sent-at-field`, `--room-field`): dot paths into the event's first
 * argument (`meta.id`, `data.items.0.ts`). Compiled once to a getter; a one-segment path (the
 * default `id`, `sentAt`, `room`) is a plain property read on the hot path.
 */
import { invalidOption } from '../errors.js'

/** @typedef {(value: unknown) => unknown} FieldGetter */

/**
 * @param {unknown} value a flag's value: 'a.b.c'
 * @param {string} flag
 * @returns {string} the path, checked
 */
export function parseFieldPath (value, flag) {
  const path = String(value)
  if (!/^[^.\s]+(\.[^.\s]+)*$/.test(path) || path.length > 200) {
    throw invalidOption(flag,
      `must be a dot path into the message such as id or meta.id or items.0.ts (no spaces or empty segments), got ${JSON.stringify(value)}`)
  }
  return path
}

/**
 * A getter for a dot path: undefined where the path does not lead to a value.
 * @param {string} path
 * @returns {FieldGetter}
 */
export function fieldGetter (path) {
  const parts = path.split('.')
  if (parts.length === 1) {
    const [key] = parts
    return (value) => (value !== null && typeof value === 'object' ? /** @type {Record<string, unknown>} */ (value)[key] : undefined)
  }
  return (value) => {
    let node = value
    for (const key of parts) {
      if (node === null || typeof node !== 'object') return undefined
      node = /** @type {Record<string, unknown>} */ (node)[key]
    }
    return node
  }
}

/**
 * Sets a dot path in a plain object (an emit's id and send time go where the user's server
 * reads them). The objects on the way are copied, or made: a rendered template may share its
 * constant parts between renders, and those must not change.
 * @param {Record<string, unknown>} target changed in place (callers pass their own copy)
 * @param {string} path
 * @param {unknown} value
 */
export function setField (target, path, value) {
  fieldSetter(path)(target, value)
}

/**
 * setField compiled for one path (split once: an emit stamps two fields on every emit); a
 * one-segment path (the default `id`, `sentAt`) is a plain property write.
 * @param {string} path
 * @returns {(target: Record<string, unknown>, value: unknown) => void}
 */
export function fieldSetter (path) {
  const parts = path.split('.')
  const last = /** @type {string} */ (parts.pop())
  if (parts.length === 0) return (target, value) => { target[last] = value }
  return (target, value) => {
    let node = target
    for (const key of parts) {
      const next = node[key]
      node[key] = next !== null && typeof next === 'object' && !Array.isArray(next) ? { ...next } : {}
      node = /** @type {Record<string, unknown>} */ (node[key])
    }
    node[last] = value
  }
}

/**
 * A send time as epoch milliseconds. Numbers are told apart by magnitude, which is safe for
 * any time after 1973: seconds (1e9 to 1e11, as Python's time.time() gives), milliseconds
 * (1e11 to 1e14), microseconds (1e14 to 1e17), nanoseconds (above); strings are ISO 8601
 * (Date.parse) or a number in one of those units.
 * @param {unknown} value
 * @returns {number | null} null when it is not a time
 */
export function toEpochMs (value) {
  if (typeof value === 'string') {
    const text = value.trim()
    if (/^\d+(\.\d+)?$/.test(text)) return toEpochMs(Number(text))
    const ms = Date.parse(text)
    return Number.isNaN(ms) ? null : ms
  }
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 1e9) return null
  if (value < 1e11) return value * 1000
  if (value < 1e14) return value
  if (value < 1e17) return value / 1000
  return value / 1e6
}
