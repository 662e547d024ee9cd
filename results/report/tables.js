/**
 * The report's tables: distributions at a glance, rounds, simulators, messages, thresholds,
 * and the run's options and host, so a report stands on its own.
 */
import { formatBusy, formatBytes, formatMs, formatTlsBeside } from '../../lib/text/format.js'
import { reasonRows } from '../../lib/reasons.js'
import { formatDate, summarizeHealth } from '../text/summary.js'
import { htmlTable } from './html.js'
import { orderMessages } from './charts/charts-messages.js'
import { deliveryFaults, missedDeliveries } from '../merge/delivery-rows.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').RunResult} RunResult
 * @typedef {import('../../lib/schema/result-schema.js').DistributionResult} DistributionResult
 * @typedef {import('../../lib/schema/result-schema.js').RoundResult} RoundResult
 */

/** @param {number} count @param {number} total */
function share (count, total) {
  return total > 0 ? `${count}/${total} (${Number((count / total * 100).toFixed(2))}%)` : `${count}/${total}`
}

/** @param {RoundResult} r */
function roundStats (r) {
  const rel = r.relative.count > 0 ? r.relative : null
  const abs = r.absolute && r.absolute.count > 0 ? r.absolute : null
  return { rel, abs }
}

/**
 * Worst values over the rounds of a distribution (percentiles of rounds cannot be merged); a
 * distribution without rounds: its delays over every message.
 * @param {DistributionResult} d
 */
function worstRound (d) {
  const total = d.rounds.length === 0 ? d.deliveries?.total : undefined
  if (total) {
    const rel = total.relative.count > 0 ? total.relative : null
    const abs = total.absolute && total.absolute.count > 0 ? total.absolute : null
    return { relP99: rel?.p99 ?? null, relMax: rel?.max ?? null, absP99: abs?.p99 ?? null, avg: null, floorMax: null, busyMax: null }
  }
  const worst = (/** @type {(r: RoundResult) => number | null | undefined} */ f) => {
    const values = d.rounds.map(f).filter((v) => typeof v === 'number')
    return values.length ? Math.max(...values) : null
  }
  return {
    relP99: worst((r) => roundStats(r).rel?.p99),
    relMax: worst((r) => roundStats(r).rel?.max),
    absP99: worst((r) => roundStats(r).abs?.p99),
    avg: worst((r) => (roundStats(r).rel ? r.avgOfAverages.relativeMs : null)),
    floorMax: worst((r) => r.floor?.maxMs),
    busyMax: worst((r) => r.floor?.busyMax)
  }
}

/**
 * One row per distribution: clients, deliveries, worst round, simulators' health. Its text
 * cells wrap and its padding is narrow (fit), so its 17 columns fit a 1,400-pixel window.
 * @param {RunResult} result
 */
export function distributionsTable (result) {
  const rows = result.distributions.map((d) => {
    const { missing, expected } = missedDeliveries(d)
    const worst = worstRound(d)
    const health = summarizeHealth(d)
    const saturated = health.saturated.reduce((s, x) => s + x.seconds, 0)
    const faults = deliveryFaults(d)
    const connectP99 = formatMs(d.connectTime.count ? d.connectTime.p99 : null) + formatTlsBeside(d.tlsTime)
    return [d.name, `${d.simulators} × ${d.clientsPerSimulator}`, share(d.clients.connected, d.clients.target), d.clients.failed,
      d.lines?.lines ?? d.messages.length, share(missing, expected), faults?.misdelivered ?? '-', faults?.duplicated ?? '-',
      formatMs(worst.relP99), formatMs(worst.relMax), formatMs(worst.absP99), formatMs(worst.avg),
      formatMs(worst.floorMax), formatBusy(worst.busyMax), connectP99, `${saturated} s`, health.stale.length]
  })
  const header = ['distribution', 'sims × clients', 'connected', 'failed', 'messages', 'missing', 'misdelivered', 'duplicated',
    'rel p99', 'rel max', 'abs p99', 'avg of avgs', 'floor max', 'busiest', 'connect p99', 'saturated', 'stale sims']
  return '<p class="muted">Delays: the worst round of each distribution (percentiles of different rounds cannot be merged); ' +
    'without rounds, over every message. ' +
    'Floor: the most CPU a simulator spent draining a message; busiest: the largest share of a drain\'s wall time a simulator spent on CPU.</p>' +
    htmlTable(header, rows, { fit: true })
}

/**
 * Per round: what was sent, who got it, how late.
 * @param {DistributionResult} d
 */
export function roundsTable (d) {
  const rows = d.rounds.map((r) => {
    const { rel, abs } = roundStats(r)
    // A simulate result does not know the plan of the rounds it heard (count 0).
    return [r.round, r.count ? `${r.count} × ${r.intervalMs} ms` : '-', r.count ? `${r.messages}/${r.count}` : r.messages,
      share(r.received, r.expected), r.missing,
      formatMs(rel?.p50), formatMs(rel?.p90), formatMs(rel?.p99), formatMs(rel?.max), formatMs(abs?.p50), formatMs(abs?.p99),
      formatMs(rel ? r.avgOfAverages.relativeMs : null), formatMs(abs ? r.avgOfAverages.absoluteMs : null),
      formatMs(r.floor?.p50Ms), formatMs(r.floor?.maxMs), formatBusy(r.floor?.busyMax)]
  })
  const header = ['round', 'plan', 'messages seen', 'clients reached', 'missing', 'rel p50', 'rel p90', 'rel p99', 'rel max',
    'abs p50', 'abs p99', 'avg of avgs rel', 'avg of avgs abs', 'floor p50', 'floor max', 'busiest']
  return htmlTable(header, rows, { rowClasses: d.rounds.map((r) => (r.missing > 0 ? 'warn' : undefined)) })
}

/**
 * @param {DistributionResult} d
 */
export function simulatorsTable (d) {
  const rows = d.simulatorList.map((s) => {
    const h = s.health
    const sign = s.clock.offsetMs >= 0 ? '+' : ''
    const offset = `${sign}${s.clock.offsetMs.toFixed(2)} ms ± ${s.clock.uncertaintyMs.toFixed(2)} ms (${s.clock.reference})`
    const health = h
      ? `loop p99 max ${formatMs(h.loopDelayP99MaxMs)}, CPU max ${Math.round(h.cpuPctMax)}%, ` +
        `RSS max ${formatBytes(h.rssMaxBytes)}, saturated ${h.saturatedSeconds} s`
      : 'not reported'
    return [s.id, s.hostname, s.pid, s.engine, s.transport, s.clients.target, s.clients.connected, s.clients.failed, s.stale ? 'STALE' : 'no', offset, health]
  })
  const rowClasses = d.simulatorList.map((s) => (s.stale || (s.health?.saturatedSeconds ?? 0) > 0 ? 'warn' : undefined))
  const header = ['simulator', 'host', 'pid', 'engine', 'transport', 'target', 'connected', 'failed', 'stale', 'clock offset', 'health']
  return htmlTable(header, rows, { rowClasses })
}

/**
 * Connect errors and disconnects by reason, summed over the simulators; null when the
 * result has none (or predates them). A reason is the server's text: escaped like any cell.
 * @param {DistributionResult} d
 * @returns {string | null}
 */
export function reasonsTable (d) {
  const rows = reasonRows(d.clients).map((r) => [r.kind, r.reason, r.count])
  if (!rows.length) return null
  return htmlTable(['kind', 'reason', 'count'], rows, { rowClasses: rows.map((r) => (r[0] === 'connect error' ? 'warn' : undefined)) })
}

/**
 * Every message with its numbers (the charts cut long ids; this table does not).
 * @param {DistributionResult} d
 */
export function messagesTable (d) {
  const rows = orderMessages(d.messages).map((m) => {
    const rel = m.relative.count > 0 ? m.relative : null
    const abs = m.absolute && m.absolute.count > 0 ? m.absolute : null
    const floor = m.floor ? `${formatMs(m.floor.cpuMs)} in ${formatMs(m.floor.spreadMs)} (${m.floor.simulator})` : '-'
    return [m.id, m.event, m.round ?? '-', m.simulators, share(m.received, m.expected), m.missing, formatMs(rel?.p50), formatMs(rel?.p90),
      formatMs(rel?.p99), formatMs(rel?.max), formatMs(abs?.p50), formatMs(abs?.p99), abs ? `± ${formatMs(abs.uncertaintyMs)}` : '-',
      formatMs(m.avgOfAverages.relativeMs), floor, formatBusy(m.floor?.busyMax)]
  })
  const header = ['id', 'event', 'round', 'simulators', 'reached', 'missing', 'rel p50', 'rel p90', 'rel p99', 'rel max',
    'abs p50', 'abs p99', 'clock ±', 'avg of avgs', 'floor (simulator)', 'busiest']
  return htmlTable(header, rows, { rowClasses: orderMessages(d.messages).map((m) => (m.missing > 0 ? 'warn' : undefined)) })
}

/**
 * @param {import('../../lib/schema/result-schema.js').ThresholdVerdict[]} verdicts
 */
export function thresholdsTable (verdicts) {
  return htmlTable(['verdict', 'threshold', 'actual'], verdicts.map((v) => [v.ok ? 'pass' : 'FAIL', v.expression, v.actual]),
    { rowClasses: verdicts.map((v) => (v.ok ? 'pass' : 'fail')) })
}

/**
 * The run's options as given, then the tool, the collector and the host that ran it.
 * @param {RunResult} result
 */
export function runDetailsTables (result) {
  // Set options only, under a readable name: `ramp` (2 s), not `rampMs 2000` or `wsClient null`.
  const options = Object.entries(result.options ?? {}).flatMap(([k, v]) => {
    if (v === null || v === undefined || (Array.isArray(v) && v.length === 0)) return []
    return [[optionLabel(k), optionValue(k, v)]]
  })
  const h = result.host
  const facts = [
    ['tool', `${result.tool.name} ${result.tool.version}`],
    ['run id', result.run.id],
    ['started', formatDate(result.run.startedAt)],
    ['ended', formatDate(result.run.endedAt)],
    ['collector', result.run.collector],
    ['target', `${result.target.url}${result.target.reference ? ' (reference server)' : ''}`],
    ['host', `${h.hostname}: ${h.platform} ${h.release} ${h.arch}, ${h.cpus} CPUs, ${formatBytes(h.memoryBytes)}, Node ${h.node}`]
  ]
  const optionsTable = options.length ? htmlTable(['option', 'value'], options) : '<p class="muted">no options recorded</p>'
  return { options: optionsTable, facts: htmlTable(['fact', 'value'], facts) }
}

/**
 * `rampMs` → `ramp`, `maxPayloadBytes` → `max payload`, `expectSimulators` → `expect simulators`.
 * @param {string} key
 */
export function optionLabel (key) {
  return key.replace(/(Ms|Bytes)$/, '').replace(/([a-z0-9])([A-Z])/g, '$1 $2').toLowerCase()
}

/**
 * A value with the unit its key names: 2000 (rampMs) → 2 s, 1000000 (maxPayloadBytes) → 1 MB.
 * @param {string} key
 * @param {unknown} value
 */
export function optionValue (key, value) {
  if (typeof value === 'number' && key.endsWith('Ms')) return value >= 1000 && value % 100 === 0 ? `${value / 1000} s` : `${value} ms`
  if (typeof value === 'number' && key.endsWith('Bytes')) {
    // As sizes are written on the command line: 1MB = 1,000,000 bytes, 1MiB = 1,048,576.
    if (value > 0 && value % 1e6 === 0) return `${value / 1e6} MB`
    if (value > 0 && value % 1048576 === 0) return `${value / 1048576} MiB`
    return formatBytes(value)
  }
  if (typeof value === 'string') return value
  if (Array.isArray(value)) return value.join(', ')
  return JSON.stringify(value) ?? String(value)
}
