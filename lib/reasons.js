/**
 * Counts by reason (connect errors, disconnects). A reason is text from the server under
 * test (a middleware's `next(new Error(text))` reaches every client as CONNECT_ERROR), so
 * it is untrusted: any name, `__proto__` included, counts right (a Map, and records built
 * with Object.fromEntries, never `record[reason] += 1`); each key is bounded in length and
 * free of control characters (newlines, escapes for the terminal, bidi overrides); and the
 * number of distinct keys is bounded (a server that sends a new text to every client folds
 * into one OTHER_REASONS key instead of growing a result without limit).
 */

/** Longest key, marker included. */
export const MAX_REASON_CHARS = 200
/** Most distinct keys in one record, besides OTHER_REASONS. */
export const MAX_REASONS = 50
/** Where the reasons past MAX_REASONS are counted. */
export const OTHER_REASONS = '(other reasons)'

// C0 and C1 controls, DEL, line and paragraph separators, bidi marks, embeddings, overrides, isolates.
// eslint-disable-next-line no-control-regex
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069]/g
/** @type {Record<string, string>} */
const SHORT = { '\n': '\\n', '\r': '\\r', '\t': '\\t' }

/**
 * The key a reason is counted under: control characters written as escapes (`\n`,
 * `\u001b`), at most MAX_REASON_CHARS long (a longer one ends with `… [N chars]`, N its
 * original length), `(empty)` for nothing. Idempotent: a key maps to itself.
 * @param {unknown} reason
 * @returns {string}
 */
export function reasonKey (reason) {
  const text = typeof reason === 'string' ? reason : String(reason ?? '')
  if (text === '') return '(empty)'
  // Escaping can only lengthen; what is past MAX_REASON_CHARS is cut anyway.
  const escaped = text.slice(0, MAX_REASON_CHARS + 1).replace(UNSAFE, (c) => SHORT[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
  if (escaped.length <= MAX_REASON_CHARS && text.length <= MAX_REASON_CHARS) return escaped
  const marker = `… [${text.length} chars]`
  let kept = escaped.slice(0, MAX_REASON_CHARS - marker.length)
  // Never end on half a surrogate pair.
  if (/[\ud800-\udbff]$/.test(kept)) kept = kept.slice(0, -1)
  return kept + marker
}

/**
 * A live counter for one kind of reason (a swarm's connect errors, its disconnects).
 * @param {number} [maxReasons]
 */
export function createReasonCounter (maxReasons = MAX_REASONS) {
  /** @type {Map<string, number>} */
  const counts = new Map()
  let total = 0
  return {
    /** @param {unknown} reason */
    add (reason) {
      let key = reasonKey(reason)
      if (!counts.has(key) && counts.size - (counts.has(OTHER_REASONS) ? 1 : 0) >= maxReasons) key = OTHER_REASONS
      counts.set(key, (counts.get(key) ?? 0) + 1)
      total++
    },
    /** Every count added. */
    total: () => total,
    /** @returns {Record<string, number>} largest first, OTHER_REASONS last */
    record: () => toRecord(counts)
  }
}

/**
 * Sums records (of simulators, of worker processes) into one, as bounded as each of them:
 * keys normalized again (a record read from JSON is not trusted), only positive finite
 * counts, the least frequent reasons past `maxReasons` folded into OTHER_REASONS.
 * @param {(Record<string, number> | null | undefined)[]} records
 * @param {number} [maxReasons]
 * @returns {Record<string, number>}
 */
export function mergeReasonCounts (records, maxReasons = MAX_REASONS) {
  /** @type {Map<string, number>} */
  const counts = new Map()
  for (const record of records) {
    if (!record || typeof record !== 'object') continue
    for (const [reason, count] of Object.entries(record)) {
      if (typeof count !== 'number' || !Number.isFinite(count) || count <= 0) continue
      const key = reasonKey(reason)
      counts.set(key, (counts.get(key) ?? 0) + count)
    }
  }
  const other = counts.get(OTHER_REASONS) ?? 0
  counts.delete(OTHER_REASONS)
  if (counts.size <= maxReasons) {
    if (other) counts.set(OTHER_REASONS, other)
    return toRecord(counts)
  }
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || compare(a[0], b[0]))
  const kept = new Map(sorted.slice(0, maxReasons))
  kept.set(OTHER_REASONS, other + sorted.slice(maxReasons).reduce((sum, [, n]) => sum + n, 0))
  return toRecord(kept)
}

/**
 * Rows for tables and CSV: connect errors, then disconnects, each largest first with
 * OTHER_REASONS last.
 * @param {{ errors?: Record<string, number>, disconnects?: Record<string, number> }} clients
 * @returns {{ kind: 'connect error' | 'disconnect', reason: string, count: number }[]}
 */
export function reasonRows (clients) {
  /** @param {'connect error' | 'disconnect'} kind @param {Record<string, number> | undefined} counts */
  const rows = (kind, counts) => Object.entries(counts ?? {})
    .sort((a, b) => Number(a[0] === OTHER_REASONS) - Number(b[0] === OTHER_REASONS) || b[1] - a[1] || compare(a[0], b[0]))
    .map(([reason, count]) => ({ kind, reason, count }))
  return [...rows('connect error', clients.errors), ...rows('disconnect', clients.disconnects)]
}

/**
 * A plain record, largest count first, OTHER_REASONS last. Object.fromEntries defines own
 * properties, so a key such as `__proto__` is data, not the prototype.
 * @param {Map<string, number>} counts
 * @returns {Record<string, number>}
 */
function toRecord (counts) {
  const entries = [...counts].filter(([key]) => key !== OTHER_REASONS).sort((a, b) => b[1] - a[1] || compare(a[0], b[0]))
  if (counts.has(OTHER_REASONS)) entries.push([OTHER_REASONS, /** @type {number} */ (counts.get(OTHER_REASONS))])
  return Object.fromEntries(entries)
}

/** @param {string} a @param {string} b */
function compare (a, b) {
  return a < b ? -1 : a > b ? 1 : 0
}
