/**
 * CSV exports of a run's distributions, for spreadsheets and other tools. RFC 4180
 * (CRLF rows, fields with a comma, quote or line break quoted, quotes doubled). Text that
 * a spreadsheet would run as a formula (starting with an equals, plus, minus or at sign, a
 * tab or a CR) is prefixed with a single quote: names and ids come from users and servers
 * (OWASP "CSV injection").
 */

import { WIRE_NAMES } from '../../lib/transports.js'
import { reasonRows } from '../../lib/reasons.js'

/** @typedef {import('../../lib/schema/result-schema.js').DistributionResult} DistributionResult */

/**
 * One CSV field.
 * @param {unknown} value
 */
export function csvField (value) {
  if (value === null || value === undefined) return ''
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : ''
  if (typeof value === 'boolean') return String(value)
  let text = String(value)
  if (/^[=+\-@\t\r]/.test(text)) text = `'${text}`
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

/**
 * @param {string[]} header
 * @param {unknown[][]} rows
 */
function csv (header, rows) {
  return [header, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n'
}

const MESSAGE_HEADER = [
  'distribution', 'round', 'seq', 'id', 'event', 'sent_at', 'simulators', 'received', 'expected', 'missing',
  'relative_mean_ms', 'relative_p50_ms', 'relative_p90_ms', 'relative_p99_ms', 'relative_max_ms',
  'absolute_p50_ms', 'absolute_p99_ms', 'absolute_uncertainty_ms', 'avg_of_averages_ms',
  'floor_cpu_ms', 'floor_spread_ms', 'floor_simulator', 'floor_busy_max',
  'namespace', 'room', 'duplicates', 'misdelivered'
]

/**
 * One row per message per distribution. The floor columns: the simulator that spent the most
 * CPU draining the message, that CPU and its wall spread, and the largest CPU ÷ spread of any
 * simulator (empty when no simulator reported a floor). The namespace, room and copy counts
 * come last (added later: columns keep their places); room is empty for a message to every
 * client, and the four are empty in results older than them.
 * @param {DistributionResult[]} distributions
 * @returns {string}
 */
export function messagesCsv (distributions) {
  const rows = distributions.flatMap((d) => d.messages.map((m) => [
    d.name, m.round, m.seq, m.id, m.event, m.sentAt, m.simulators, m.received, m.expected, m.missing,
    m.relative.mean, m.relative.p50, m.relative.p90, m.relative.p99, m.relative.max,
    m.absolute?.p50, m.absolute?.p99, m.absolute?.uncertaintyMs, m.avgOfAverages.relativeMs,
    m.floor?.cpuMs, m.floor?.spreadMs, m.floor?.simulator, m.floor?.busyMax,
    m.namespace, m.room, m.duplicates, m.misdelivered
  ]))
  return csv(MESSAGE_HEADER, rows)
}

const DELIVERY_HEADER = [
  'distribution', 'scope', 'namespace', 'room', 'rooms_folded', 'event', 'messages', 'expected', 'received', 'missing',
  'misdelivered', 'duplicates', 'relative_mean_ms', 'relative_p50_ms', 'relative_p90_ms', 'relative_p99_ms', 'relative_max_ms',
  'absolute_p50_ms', 'absolute_p99_ms', 'absolute_max_ms', 'absolute_uncertainty_ms'
]

/**
 * The delivery breakdown of each distribution: one row per (namespace, room, event) (scope
 * `room`: the top rooms by traffic; an empty room is either the messages to everyone
 * (rooms_folded 0) or the other rooms folded together (rooms_folded their number)), then one per namespace (scope
 * `namespace`) and the distribution's total (scope `total`). Delays are merged percentiles.
 * @param {DistributionResult[]} distributions
 * @returns {string}
 */
export function deliveriesCsv (distributions) {
  /** @param {string} name @param {string} scope @param {import('../../lib/schema/result-schema.js').DeliveryRow} r */
  const row = (name, scope, r) => [
    name, scope, r.namespace, r.room, r.foldedRooms, r.event, r.messages, r.expected, r.received, r.missing,
    r.misdelivered, r.duplicates, r.relative.mean, r.relative.p50, r.relative.p90, r.relative.p99, r.relative.max,
    r.absolute?.p50, r.absolute?.p99, r.absolute?.max, r.absolute?.uncertaintyMs
  ]
  const rows = distributions.flatMap((d) => d.deliveries
    ? [
        ...d.deliveries.rows.map((r) => row(d.name, 'room', r)),
        ...d.deliveries.namespaces.map((r) => row(d.name, 'namespace', r)),
        row(d.name, 'total', d.deliveries.total)
      ]
    : [])
  return csv(DELIVERY_HEADER, rows)
}

const SAMPLE_HEADER = [
  'distribution', 'kind', 'source', 't', 'time', 'connected', ...WIRE_NAMES, 'connects', 'disconnects',
  'errors', 'messages', 'loop_delay_p50_ms', 'loop_delay_p99_ms', 'loop_delay_max_ms', 'elu', 'cpu_pct',
  'rss_bytes', 'heap_used_bytes', 'saturated'
]

/** @param {number} t */
const iso = (t) => Number.isFinite(t) ? new Date(t).toISOString() : ''

/**
 * One row per sample: simulator timeline points (kind `timeline`), simulator process
 * samples (`health`) and server samples (`server`), per distribution.
 * @param {DistributionResult[]} distributions
 * @returns {string}
 */
export function samplesCsv (distributions) {
  const rows = distributions.flatMap((d) => [
    ...d.timeline.map((p) => [
      d.name, 'timeline', p.simulator, p.t, iso(p.t), p.connected, ...WIRE_NAMES.map((name) => p.byTransport[name]),
      p.connects, p.disconnects, p.errors, p.messages
    ]),
    ...d.health.map((h) => [
      d.name, 'health', h.simulator, h.t, iso(h.t), null, ...WIRE_NAMES.map(() => null), null, null, null, null,
      h.loopDelayP50Ms, h.loopDelayP99Ms, h.loopDelayMaxMs, h.elu, h.cpuPct, h.rssBytes, h.heapUsedBytes, h.saturated
    ]),
    ...d.server.map((s) => [
      d.name, 'server', s.server ?? 'server', s.t, iso(s.t), s.connected, ...WIRE_NAMES.map((name) => s.byTransport[name]),
      null, null, null, null, s.loopDelayP50Ms, s.loopDelayP99Ms, s.loopDelayMaxMs, s.elu, s.cpuPct, s.rssBytes, s.heapUsedBytes, null
    ])
  ])
  return csv(SAMPLE_HEADER, rows)
}

/**
 * One row per (distribution, kind, reason): connect errors and disconnects by reason,
 * summed over the simulators (the reason is the server's text; csvField quotes and defuses it).
 * @param {DistributionResult[]} distributions
 * @returns {string}
 */
export function reasonsCsv (distributions) {
  return csv(['distribution', 'kind', 'reason', 'count'], distributions.flatMap((d) => reasonRows(d.clients).map((r) => [d.name, r.kind, r.reason, r.count])))
}

/**
 * A window's fields as flat columns: nested records joined with '_' (clients_connected,
 * relative_p99, emits_ackTime_p99), so a figure added to a window (lib/schema/result-schema.js
 * WINDOW_MERGE_RULES) becomes a column with no change here.
 * @param {Record<string, unknown>} row
 * @param {string} [prefix]
 * @returns {[string, unknown][]}
 */
function flatten (row, prefix = '') {
  return Object.entries(row).flatMap(([key, value]) => (value !== null && typeof value === 'object'
    ? flatten(/** @type {Record<string, unknown>} */ (value), `${prefix}${key}_`)
    : [[`${prefix}${key}`, value]]))
}

/**
 * One row per window per distribution (a run without rounds): its interval (epoch ms and UTC)
 * and every figure of the window, merged over the simulators; delays in ms.
 * @param {DistributionResult[]} distributions
 * @returns {string}
 */
export function windowsCsv (distributions) {
  const rows = distributions.flatMap((d) => (d.windows ?? []).map((w) => ({
    distribution: d.name, start_utc: new Date(w.startAt).toISOString(), cells: new Map(flatten(w))
  })))
  /** @type {string[]} */
  const columns = []
  for (const row of rows) for (const key of row.cells.keys()) if (!columns.includes(key)) columns.push(key)
  return csv(['distribution', 'start_utc', ...columns], rows.map((row) => [row.distribution, row.start_utc, ...columns.map((c) => row.cells.get(c))]))
}
