/**
 * Formatting for humans: milliseconds, bytes, aligned tables. Output goes to stderr
 * (JSON to stdout), so nothing here writes.
 */

/**
 * Replaces control characters so a name from a result file (or a server) cannot drive the terminal.
 * @param {unknown} text
 */
export function plain (text) {
  // eslint-disable-next-line no-control-regex
  return String(text).replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, '?')
}

/**
 * @param {number | null | undefined} ms
 */
export function formatMs (ms) {
  if (ms === null || ms === undefined || Number.isNaN(ms)) return '-'
  if (ms === 0) return '0ms'
  if (ms >= 10000) return `${(ms / 1000).toFixed(1)}s`
  if (ms >= 100) return `${Math.round(ms)}ms`
  if (ms >= 10) return `${ms.toFixed(1)}ms`
  return `${ms.toFixed(2)}ms`
}

/**
 * A process's CPU time as a share of a wall time, in percent (it may pass 100 %: a process's
 * helper threads run beside its main one).
 * @param {number | null | undefined} share
 */
export function formatBusy (share) {
  return share === null || share === undefined || Number.isNaN(share) ? '-' : `${Math.round(share * 100)}%`
}

/**
 * @param {number} bytes
 */
export function formatBytes (bytes) {
  if (bytes >= 1 << 30) return `${(bytes / (1 << 30)).toFixed(2)} GiB`
  if (bytes >= 1 << 20) return `${(bytes / (1 << 20)).toFixed(1)} MiB`
  if (bytes >= 1 << 10) return `${(bytes / (1 << 10)).toFixed(1)} KiB`
  return `${bytes} B`
}

/**
 * An aligned text table: numbers right-aligned, text left-aligned.
 * @param {string[]} header
 * @param {(string | number)[][]} rows
 * @returns {string}
 */
export function table (header, rows) {
  const cells = [header, ...rows.map((r) => r.map((c) => String(c)))]
  const numeric = header.map((_, i) => rows.length > 0 && rows.every((r) => typeof r[i] === 'number' || /^[-\d.]+(ms|s|%| KiB| MiB)?$/.test(String(r[i]))))
  const widths = header.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length)))
  const line = (/** @type {string[]} */ r) => r.map((c, i) => numeric[i] ? (c ?? '').padStart(widths[i]) : (c ?? '').padEnd(widths[i])).join('  ').trimEnd()
  return [line(cells[0]), widths.map((w) => '-'.repeat(w)).join('  '), ...cells.slice(1).map(line)].join('\n')
}

/**
 * Counts as `reason: n, reason: n` (or, for a report's table, `reason ×n, reason ×n`), largest first.
 * @param {Record<string, number> | undefined} counts
 * @param {{ times?: boolean, none?: string }} [style] times: `×n` after each reason; none: the text when there is none
 */
export function formatCounts (counts, { times = false, none = 'none' } = {}) {
  const entries = Object.entries(counts ?? {}).sort((a, b) => b[1] - a[1])
  if (entries.length === 0) return none
  return entries.map(([k, v]) => (times ? `${k} ×${v}` : `${k}: ${v}`)).join(', ')
}

/**
 * One line for a connection avalanche (every client at once, --ramp 0): how fast the server
 * accepted handshakes (attempt → Engine.IO open packet), how fast clients were connected, and
 * the handshakes that failed, by reason.
 * @param {number} clients
 * @param {{ p50: number | null, p99: number | null, max: number | null } | undefined} accept
 * @param {{ p50: number | null, p99: number | null, max: number | null }} connect
 * @param {Record<string, number>} errors
 * @param {{ p50: number | null, p99: number | null }} [tls] TLS handshake times, shown beside the connect time
 */
export function formatAvalanche (clients, accept, connect, errors, tls) {
  /** @param {{ p50: number | null, p99: number | null, max: number | null }} t */
  const times = (t) => `p50 ${formatMs(t.p50)}, p99 ${formatMs(t.p99)}, max ${formatMs(t.max)}`
  const accepted = accept ? `handshake accepted (Engine.IO open) ${times(accept)}` : 'handshake accept time not measured'
  const failed = Object.values(errors).reduce((a, b) => a + b, 0)
  return `avalanche: ${clients} clients at once (--ramp 0): ${accepted}; connected ${times(connect)}${formatTlsBeside(tls)}; ` +
    `failed handshakes: ${failed}${failed ? ` (${formatCounts(errors)})` : ''}`
}

/**
 * The TLS part of a connect time, shown beside it: ` (TLS p50 …, p99 …)`, '' without TLS.
 * @param {{ p50: number | null, p99: number | null } | undefined} tls TCP up → TLS ready of every TLS connection
 */
export function formatTlsBeside (tls) {
  return tls ? ` (TLS p50 ${formatMs(tls.p50)}, p99 ${formatMs(tls.p99)})` : ''
}

/**
 * One line for a reconnect storm.
 * @param {import('../schema/result-schema.js').Storm} s
 */
export function formatStorm (s) {
  const at = new Date(s.startedAt).toISOString().slice(11, 19)
  const all = s.endedMs === null ? `- (${s.back} of ${s.dropped} back)` : formatMs(s.endedMs)
  const back = `back: 50 % in ${formatMs(s.backMs.p50)}, 90 % in ${formatMs(s.backMs.p90)}, 99 % in ${formatMs(s.backMs.p99)}, all in ${all}`
  // Recovery and the gap: absent from results of older simulators.
  const gap = s.lost === undefined ? '' : `; sessions recovered: ${s.recovered ?? 0}, gap messages replayed: ${s.replayed ?? 0}, lost: ${s.lost}`
  const attempts = `${s.attempts} attempts, failed: ${formatCounts(s.errors)}`
  return `storm at ${at} UTC: ${s.dropped} clients dropped (${formatCounts(s.reasons)}); ${back}; ${attempts}${gap}`
}

/**
 * A layout of processes and the whole swarm it makes, as a first line says it: `4 simulators ×
 * 5,000 = 20,000 clients`; a total that does not split evenly gives each its range, `4 workers ×
 * 5,000-5,001 = 20,001 clients` (the first ones get one more).
 * @param {number} processes
 * @param {number} total the clients over all of them
 * @param {string} noun one process: 'simulator', 'worker'
 */
export function formatLayout (processes, total, noun) {
  const n = (/** @type {number} */ x) => x.toLocaleString('en-US')
  const base = Math.floor(total / processes)
  const each = total % processes === 0 ? n(base) : `${n(base)}-${n(base + 1)}`
  return `${processes} ${noun}${processes === 1 ? '' : 's'} × ${each} = ${n(total)} client${total === 1 ? '' : 's'}`
}
