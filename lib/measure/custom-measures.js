/**
 * The app's own measurements: a scenario's hooks record timings
 * (`ctx.timing(name, ms)`, an HDR histogram per name) and counts (`ctx.count(name, n)`, a sum
 * per name). Names are bounded (the first MAX_CUSTOM_NAMES of a process; later new names are
 * refused and counted) and plain (CUSTOM_NAME), so they can be a threshold's metric
 * (`custom.join_lobby.p99<300ms`), a Prometheus label and a table cell without escaping. A name
 * is a timing or a count, never both. The merge over processes (lib/schema/result-schema.js MERGE_RULES
 * `custom`) sums counts and merges histograms by name, bounded the same way.
 */
import { createHistogram, encode, mergeEncoded, recordMs, summarize } from './histogram.js'

/** Most names a process (and a merge) keeps; records of later new names are refused. */
export const MAX_CUSTOM_NAMES = 50
/** A custom figure's name: a letter, then letters, digits or underscores, 64 at most. */
export const CUSTOM_NAME = /^[A-Za-z][A-Za-z0-9_]{0,63}$/
/** Refused names a report keeps to say which (the count of refused records is whole). */
const MAX_REFUSED_NAMES = 5

/**
 * @typedef {import('../schema/result-schema.js').CustomReport} CustomReport
 * @typedef {import('../schema/result-schema.js').EncodedDelay} EncodedDelay
 */

/**
 * Throws a TypeError naming what is wrong with a name (a hook's bug: counted as a hook error).
 * @param {unknown} name
 * @returns {string}
 */
function checkCustomName (name) {
  if (typeof name !== 'string' || !CUSTOM_NAME.test(name)) {
    throw new TypeError(`custom figure name ${JSON.stringify(String(name)).slice(0, 80)}: a letter, then letters, digits or _ (64 at most)`)
  }
  return name
}

/** A process's custom figures, recorded by its hooks. */
export function createCustomFigures () {
  /** @type {Map<string, import('./histogram.js').Histogram>} */
  const timings = new Map()
  /** @type {Map<string, number>} */
  const counts = new Map()
  /** @type {string[]} */
  const refusedNames = []
  let refused = 0

  /** @param {string} name @param {'timing' | 'count'} kind @returns {boolean} false: refused (past the bound) */
  function admit (name, kind) {
    checkCustomName(name)
    const other = kind === 'timing' ? counts : timings
    if (other.has(name)) throw new TypeError(`custom figure ${name} is a ${kind === 'timing' ? 'count' : 'timing'}, not a ${kind}`)
    if ((kind === 'timing' ? timings : counts).has(name)) return true
    if (timings.size + counts.size < MAX_CUSTOM_NAMES) return true
    refused++
    if (refusedNames.length < MAX_REFUSED_NAMES && !refusedNames.includes(name)) refusedNames.push(name)
    return false
  }

  return {
    /**
     * One timing of `name`, in milliseconds.
     * @param {string} name
     * @param {number} ms
     * @returns {boolean} false: refused (a name past the bound)
     */
    timing (name, ms) {
      if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) {
        throw new TypeError(`custom timing ${String(name).slice(0, 64)}: ms must be a number ≥ 0, got ${String(ms).slice(0, 40)}`)
      }
      if (!admit(name, 'timing')) return false
      let histogram = timings.get(name)
      if (histogram === undefined) timings.set(name, (histogram = createHistogram()))
      recordMs(histogram, ms)
      return true
    },
    /**
     * Adds `n` (default 1) to the count `name`.
     * @param {string} name
     * @param {number} [n]
     * @returns {boolean} false: refused (a name past the bound)
     */
    count (name, n = 1) {
      if (typeof n !== 'number' || !Number.isFinite(n)) {
        throw new TypeError(`custom count ${String(name).slice(0, 64)}: n must be a finite number, got ${String(n).slice(0, 40)}`)
      }
      if (!admit(name, 'count')) return false
      counts.set(name, (counts.get(name) ?? 0) + n)
      return true
    },
    /** @returns {{ counts: Map<string, number>, timings: Map<string, import('./histogram.js').Histogram> }} what was recorded, live (not copied) */
    live: () => ({ counts, timings }),
    /** @returns {CustomReport | null} null: nothing was recorded */
    record () {
      if (timings.size + counts.size + refused === 0) return null
      return {
        timings: Object.fromEntries([...timings].map(([name, h]) => [name, { ...summarize(h), histogram: encode(h) }])),
        counts: Object.fromEntries(counts),
        refused,
        refusedNames: [...refusedNames]
      }
    }
  }
}

/**
 * The custom figures of several processes as one: counts summed and histograms merged by
 * name; names past MAX_CUSTOM_NAMES (in order of first appearance) refused with their records.
 * Reports read from JSON are not trusted: bad names and values are left out.
 * @param {(CustomReport | null | undefined)[]} reports
 * @returns {CustomReport | undefined} undefined when no process had any
 */
export function mergeCustomReports (reports) {
  const list = reports.filter((r) => r !== null && r !== undefined && typeof r === 'object')
  if (list.length === 0) return undefined
  /** @type {Map<string, string[]>} */
  const timings = new Map()
  /** @type {Map<string, number>} */
  const counts = new Map()
  let refused = 0
  /** @type {string[]} */
  const refusedNames = []
  const refuse = (/** @type {string} */ name, /** @type {number} */ records) => {
    refused += records
    if (refusedNames.length < MAX_REFUSED_NAMES && !refusedNames.includes(name)) refusedNames.push(name)
  }
  const full = (/** @type {string} */ name) => !timings.has(name) && !counts.has(name) && timings.size + counts.size >= MAX_CUSTOM_NAMES
  for (const r of list) {
    refused += Number.isFinite(r.refused) ? r.refused : 0
    for (const name of r.refusedNames ?? []) if (refusedNames.length < MAX_REFUSED_NAMES && !refusedNames.includes(name)) refusedNames.push(name)
    for (const [name, t] of Object.entries(r.timings ?? {})) {
      if (!CUSTOM_NAME.test(name) || counts.has(name) || typeof t?.histogram !== 'string') continue
      if (full(name)) refuse(name, t.count ?? 0)
      else timings.set(name, [...(timings.get(name) ?? []), t.histogram])
    }
    for (const [name, n] of Object.entries(r.counts ?? {})) {
      if (!CUSTOM_NAME.test(name) || timings.has(name) || typeof n !== 'number' || !Number.isFinite(n)) continue
      if (full(name)) refuse(name, 1)
      else counts.set(name, (counts.get(name) ?? 0) + n)
    }
  }
  return {
    timings: Object.fromEntries([...timings].map(([name, encoded]) => {
      const merged = mergeEncoded(encoded)
      return [name, { ...summarize(merged), histogram: encode(merged) }]
    })),
    counts: Object.fromEntries(counts),
    refused,
    refusedNames
  }
}
