/**
 * Pass/fail thresholds for `--assert`, evaluated against a RunResult. A failed threshold
 * makes the command exit with EXIT.THRESHOLD (3).
 *
 * | metric                         | value                                                        | units                |
 * |--------------------------------|--------------------------------------------------------------|----------------------|
 * | p50 p90 p99 max mean           | relative delay, worst round of any distribution (no rounds: all messages) | ms, s (bare = ms) |
 * | avg                            | relative avg of simulator averages (2012 rig), worst round   | ms, s                |
 * | abs.p50 … abs.mean, abs.avg    | the same for absolute latency (clock-corrected)              | ms, s                |
 * | missing                        | missed deliveries, total over all distributions              | count, % of expected |
 * | connected, failed              | clients connected at the end / never connected, total        | count, % of target   |
 * | stale                          | simulators that stopped reporting before the end             | count                |
 * | sim.loopDelayP99               | worst simulator's one-second event-loop delay p99            | ms, s                |
 * | sim.cpu                        | worst simulator's highest CPU, % of one core                 | %                    |
 * | sim.saturated                  | worst simulator's seconds of saturation                      | count (seconds)      |
 * | misdelivered, duplicated       | copies to clients outside the target room / second copies    | count, % of arrived  |
 * | echo                           | copies of a line back to the client that emitted it          | count, % of arrived  |
 * | ack.p50 ack.p90 ack.p99 ack.max| emit → ack (--emit-ack, emitWithAck), worst distribution or window | ms, s         |
 * | ack.timeouts                   | emits never acked within --ack-timeout, total                | count, % of sent     |
 * | join.failed                    | --join refused or cut short, total                           | count, % of sent     |
 * | reply.p50 … reply.max          | emit → reply event (--reply-event, emitAndWait), worst distribution or window | ms, s |
 * | reply.timeouts                 | emits whose reply event never came within --ack-timeout      | count, % of sent     |
 * | nodes.imbalance                | --node-from: fullest ÷ emptiest node at the end, worst dist. | ratio (1.5)          |
 * | custom.NAME.p50 … .max, .mean  | a scenario's ctx.timing(NAME, ms), worst distribution or window | ms, s             |
 * | custom.NAME.count              | a ctx.count(NAME, n) total, or the number of NAME's timings  | count                |
 *
 * Operators: < <= > >= =
 */
import { invalidOption } from '../../lib/errors.js'
import { formatMs } from '../../lib/text/format.js'
import { windowLabel, worstWindow } from '../../lib/text/window-text.js'
import { SCENARIO_METRICS, formatPct, measureScenario } from './scenario-thresholds.js'
import { missedDeliveries } from '../merge/delivery-rows.js'
import { measureImbalance } from '../text/node-lines.js'
import { CUSTOM_HELP, customMetricKind, measureCustom } from './custom-thresholds.js'

/** @typedef {'<' | '<=' | '>' | '>=' | '='} Operator */
/** @typedef {'delay' | 'share' | 'percent' | 'count' | 'ratio'} MetricKind */

/**
 * @typedef {object} Threshold
 * @property {string} expression as given, without spaces
 * @property {string} metric one of the metrics in the table above
 * @property {Operator} op
 * @property {number} value in `unit`
 * @property {'ms' | '%' | 'count' | 'ratio'} unit milliseconds, percent, a plain count, or a ratio (nodes.imbalance)
 */

const DELAYS = ['p50', 'p90', 'p99', 'max', 'mean']

/** @type {Record<string, { kind: MetricKind, describe: string }>} */
export const METRICS = Object.freeze({
  ...Object.fromEntries(DELAYS.map((p) => [p, { kind: 'delay', describe: `relative delay ${p}, worst round` }])),
  avg: { kind: 'delay', describe: 'relative average of the simulators\' averages (the 2012 figure), worst round' },
  ...Object.fromEntries(DELAYS.map((p) => [`abs.${p}`, { kind: 'delay', describe: `absolute latency ${p} (clock-corrected), worst round` }])),
  'abs.avg': { kind: 'delay', describe: 'absolute average of the simulators\' averages, worst round' },
  missing: { kind: 'share', describe: 'missed deliveries, total (count, or % of expected deliveries)' },
  connected: { kind: 'share', describe: 'clients connected at the end (count, or % of target)' },
  failed: { kind: 'share', describe: 'clients that never connected (count, or % of target)' },
  stale: { kind: 'count', describe: 'simulators that stopped reporting before the end' },
  ...Object.fromEntries(['p50', 'p90', 'p99', 'max'].map((p) => [`recover.${p}`, {
    kind: 'delay',
    describe: `reconnect storms: time until ${p === 'max' ? 'every' : `${p.slice(1)} % of the`} dropped client${p === 'max' ? ' was' : 's were'} back, ` +
      'worst storm (no storm: no data)'
  }])),
  lost: {
    kind: 'count',
    describe: 'reconnect storms: deliveries of messages sent while a dropped client was away that never reached it (replayed ones are not lost)'
  },
  unreturned: { kind: 'count', describe: 'clients a reconnect storm dropped that never came back' },
  'sim.loopDelayP99': { kind: 'delay', describe: 'worst simulator\'s one-second event-loop delay p99' },
  'sim.cpu': { kind: 'percent', describe: 'worst simulator\'s CPU, % of one core' },
  'sim.saturated': { kind: 'count', describe: 'worst simulator\'s seconds of saturation' },
  ...SCENARIO_METRICS,
  'nodes.imbalance': { kind: 'ratio', describe: '--node-from: clients on the fullest node ÷ on the emptiest at the end (1 = even), worst distribution' }
})

/** Metrics that take a count or a %. */
const SHARES = Object.keys(METRICS).filter((m) => METRICS[m].kind === 'share')

const OPERATORS = ['<', '<=', '>', '>=', '=']
const UNIT_MS = { '': 1, ms: 1, s: 1000, m: 60000 }

/** Help text for the CLI: the grammar and every metric. */
export function thresholdHelp () {
  const width = Math.max(...Object.keys(METRICS).map((m) => m.length))
  const lines = Object.entries(METRICS).map(([name, m]) => `  ${name.padEnd(width)}  ${m.describe}`)
  return [
    'Thresholds (--assert METRIC OP VALUE, repeatable; exit 3 when one fails):',
    `  operators: ${OPERATORS.join(' ')}; delays take ms or s (a bare number is ms);`,
    `  ${SHARES.join('/')} take a count or a %; sim.cpu takes a %.`,
    '  examples: p99<500ms  max<2s  missing=0  connected>=99%  sim.cpu<90%  misdelivered=0  duplicated=0  ack.p99<200ms  ack.timeouts<1%  nodes.imbalance<1.5',
    '  custom.join_lobby.p99<300ms  custom.joined.count>=50',
    ...lines,
    `  ${CUSTOM_HELP}`
  ].join('\n')
}

/**
 * The thresholds' lines of a command's --help: in full (--help-all), or where they are (the
 * reference, npm run docs, writes thresholdHelp under that anchor).
 * @param {boolean} full
 */
export function thresholdEpilog (full) {
  if (full) return thresholdHelp()
  return 'Thresholds (--assert METRIC OP VALUE, repeatable; exit 3 when one fails): every metric in docs/options.md#thresholds, or --help-all'
}

/**
 * Parses one threshold expression such as `p99<500ms`, `missing=0` or `connected>=99%`.
 * @param {string} expr
 * @returns {Threshold}
 */
export function parseThreshold (expr) {
  return parseThresholdOf(expr, '--assert')
}

/**
 * parseThreshold for another flag of the same grammar (`ioswarm capacity --slo`).
 * @param {string} expr
 * @param {string} flag named in errors
 * @returns {Threshold}
 */
export function parseThresholdOf (expr, flag) {
  const expression = String(expr).replace(/\s+/g, '')
  const match = /^([a-zA-Z][\w.]*)(<=|>=|<|>|==?)(\d+(?:\.\d+)?)(ms|s|m|%)?$/.exec(expression)
  const badThreshold = (/** @type {string} */ problem) => thresholdError(expr, problem, flag)
  // A custom figure's name is checked first: a bad one is named, not a bare "not METRIC OP VALUE".
  const custom = expression.startsWith('custom.') ? { kind: customMetricKind(expression.split(/[<>=]/)[0], badThreshold), describe: '' } : null
  if (!match) throw badThreshold('is not METRIC OP VALUE')
  const [, metric, opText, number, unitText = ''] = match
  const spec = custom ?? METRICS[metric]
  if (!spec) throw badThreshold(`has an unknown metric ${JSON.stringify(metric)}`)
  const op = /** @type {Operator} */ (opText === '==' ? '=' : opText)
  const n = Number(number)
  if (spec.kind === 'delay') {
    if (unitText === '%') throw badThreshold(`takes a duration (ms or s) for ${metric}, not a %`)
    return { expression, metric, op, value: n * UNIT_MS[/** @type {'ms'} */ (unitText)], unit: 'ms' }
  }
  if (spec.kind === 'percent' && (unitText === '' || unitText === '%')) return { expression, metric, op, value: n, unit: '%' }
  if (spec.kind === 'share' && unitText === '%') return { expression, metric, op, value: n, unit: '%' }
  if (spec.kind === 'ratio' && unitText === '') return { expression, metric, op, value: n, unit: 'ratio' }
  if (spec.kind !== 'percent' && unitText === '') {
    if (!Number.isInteger(n)) throw badThreshold(`takes a whole count for ${metric}`)
    return { expression, metric, op, value: n, unit: 'count' }
  }
  const allowed = { share: 'a count or a %', percent: 'a %', count: 'a whole count', ratio: 'a plain number (1.5)' }[spec.kind]
  throw badThreshold(`takes ${allowed} for ${metric}, not ${JSON.stringify(unitText)}`)
}

/**
 * @param {unknown} expr
 * @param {string} problem
 * @param {string} flag
 */
function thresholdError (expr, problem, flag) {
  return invalidOption(flag, `${JSON.stringify(String(expr))} ${problem}. ` +
    `Write METRIC OP VALUE such as p99<500ms, missing=0 or connected>=99%. Operators: ${OPERATORS.join(' ')}. ` +
    `Units: ms or s for delays, a count or % for ${SHARES.join('/')}, % for sim.cpu. Metrics: ${Object.keys(METRICS).join(', ')}, ` +
    'custom.NAME.p50|p90|p99|max|mean|count.')
}

/**
 * Evaluates thresholds against a run: delays are the worst round of any distribution,
 * counts are totals, sim.* is the worst simulator. No data for a metric fails it.
 * @param {import('../../lib/schema/result-schema.js').RunResult} result
 * @param {Threshold[]} thresholds
 * @returns {import('../../lib/schema/result-schema.js').ThresholdVerdict[]}
 */
export function evaluateThresholds (result, thresholds) {
  return thresholds.map((threshold) => verdictOf(threshold, measureThreshold(result, threshold)))
}

/**
 * A threshold's verdict from what its metric measured (measureThreshold).
 * @param {Threshold} threshold
 * @param {{ value: number | null, actual: string }} measured
 * @returns {import('../../lib/schema/result-schema.js').ThresholdVerdict}
 */
export function verdictOf (threshold, { value, actual }) {
  return { expression: threshold.expression, ok: value !== null && meetsThreshold(value, threshold), actual }
}

/**
 * What a threshold's metric measures over a run, in the threshold's unit (null: no data), and a
 * sentence saying where: the value evaluateThresholds compares (capacity's judge weighs a failed
 * delay SLO's value against the simulators' own time).
 * @param {import('../../lib/schema/result-schema.js').RunResult} result
 * @param {Pick<Threshold, 'metric' | 'unit'>} threshold
 * @returns {{ value: number | null, actual: string }}
 */
export function measureThreshold (result, { metric, unit }) {
  return measure(result, metric, unit)
}

/**
 * Whether a value (in the threshold's unit) meets a threshold.
 * @param {number} value
 * @param {Pick<Threshold, 'op' | 'value'>} threshold
 */
export function meetsThreshold (value, { op, value: limit }) {
  switch (op) {
    case '<': return value < limit
    case '<=': return value <= limit
    case '>': return value > limit
    case '>=': return value >= limit
    default: return value === limit
  }
}

/**
 * The value of a metric over a run, in the threshold's unit, and a sentence saying where.
 * @param {import('../../lib/schema/result-schema.js').RunResult} result
 * @param {string} metric
 * @param {Threshold['unit']} unit
 * @returns {{ value: number | null, actual: string }}
 */
function measure (result, metric, unit) {
  if (metric === 'missing' || metric === 'connected' || metric === 'failed') return measureShare(result, metric, unit)
  if (metric === 'stale') {
    const stale = result.distributions.flatMap((d) => d.simulatorList.filter((s) => s.stale).map((s) => `${s.id} in ${d.name}`))
    return { value: stale.length, actual: `stale ${stale.length}${stale.length ? ` (${stale.join(', ')})` : ''}` }
  }
  if (metric.startsWith('sim.')) return measureSimulators(result, metric)
  if (metric.startsWith('recover.') || metric === 'lost' || metric === 'unreturned') return measureStorms(result, metric)
  if (metric === 'nodes.imbalance') return measureImbalance(result)
  if (metric.startsWith('custom.')) return measureCustom(result, metric)
  if (metric in SCENARIO_METRICS) return measureScenario(result, metric, /** @type {'ms' | '%' | 'count'} */ (unit))
  return measureDelay(result, metric)
}

/**
 * Worst (highest) value over every round of every distribution.
 * @param {import('../../lib/schema/result-schema.js').RunResult} result
 * @param {string} metric
 */
function measureDelay (result, metric) {
  const absolute = metric.startsWith('abs.')
  const stat = absolute ? metric.slice(4) : metric
  /** @type {{ value: number, where: string } | null} */
  let worst = null
  for (const d of result.distributions) {
    const round = worstRoundDelay(d.rounds, metric)
    if (round !== null && (worst === null || round.value > worst.value)) worst = { value: round.value, where: `round ${round.round}, ${d.name}` }
    // Without rounds (a simulate result of an app's own traffic): every message of the distribution.
    const total = d.rounds.length === 0 ? d.deliveries?.total : undefined
    const value = total && stat !== 'avg' ? roundValue({ ...total, avgOfAverages: { relativeMs: 0, absoluteMs: null } }, stat, absolute) : null
    if (value !== null && (worst === null || value > worst.value)) worst = { value, where: `all messages, ${d.name}` }
    // Without rounds, in windows: the worst window, named.
    const inWindow = stat === 'avg'
      ? null
      : worstWindow(d.windows, (w) => {
        const delays = absolute ? w.absolute : w.relative
        return delays.count === 0 ? null : delays[/** @type {'p50'} */ (stat)]
      })
    if (inWindow !== null && (worst === null || inWindow.value >= worst.value)) {
      worst = { value: inWindow.value, where: `${windowLabel(inWindow.window)}, ${d.name}` }
    }
  }
  if (!worst) return { value: null, actual: `${metric}: no data (${absolute ? 'no message with sentAt arrived' : 'no message arrived'})` }
  return { value: worst.value, actual: `${metric} ${formatMs(worst.value)} (${worst.where})` }
}

/**
 * A delay metric's worst (highest) value over some rounds, as --assert and --slo read it.
 * @param {import('../../lib/schema/result-schema.js').RoundResult[]} rounds
 * @param {string} metric p50 … mean, avg, abs.p50 … abs.avg
 * @returns {{ value: number, round: number } | null} null: no round has data
 */
export function worstRoundDelay (rounds, metric) {
  const absolute = metric.startsWith('abs.')
  const stat = absolute ? metric.slice(4) : metric
  /** @type {{ value: number, round: number } | null} */
  let worst = null
  for (const r of rounds) {
    const value = roundValue(r, stat, absolute)
    if (typeof value === 'number' && (worst === null || value > worst.value)) worst = { value, round: r.round }
  }
  return worst
}

/**
 * @param {Pick<import('../../lib/schema/result-schema.js').RoundResult, 'relative' | 'absolute' | 'avgOfAverages'>} round
 * @param {string} stat p50 … mean, or avg
 * @param {boolean} absolute
 * @returns {number | null}
 */
function roundValue (round, stat, absolute) {
  const summary = absolute ? round.absolute : round.relative
  if (!summary || summary.count === 0) return null
  if (stat === 'avg') return absolute ? round.avgOfAverages.absoluteMs : round.avgOfAverages.relativeMs
  return summary[/** @type {'p50'} */ (stat)]
}

/**
 * Totals over all distributions, as a count or as a % of expected deliveries / target clients.
 * @param {import('../../lib/schema/result-schema.js').RunResult} result
 * @param {'missing' | 'connected' | 'failed'} metric
 * @param {Threshold['unit']} unit
 */
function measureShare (result, metric, unit) {
  let count = 0
  let total = 0
  for (const d of result.distributions) {
    if (metric === 'missing') {
      const missed = missedDeliveries(d)
      count += missed.missing
      total += missed.expected
    } else {
      count += d.clients[metric]
      total += d.clients.target
    }
  }
  const of = metric === 'missing' ? 'expected deliveries' : 'target clients'
  const pct = total > 0 ? count / total * 100 : null
  const actual = `${metric} ${count} of ${total} ${of}${pct === null ? '' : ` (${formatPct(pct)})`}`
  return { value: unit === '%' ? pct : count, actual }
}

/**
 * Worst simulator of any distribution, from the simulators' health summaries.
 * @param {import('../../lib/schema/result-schema.js').RunResult} result
 * @param {string} metric
 */
function measureSimulators (result, metric) {
  /** @type {Record<string, 'loopDelayP99MaxMs' | 'cpuPctMax' | 'saturatedSeconds'>} */
  const fields = { 'sim.loopDelayP99': 'loopDelayP99MaxMs', 'sim.cpu': 'cpuPctMax', 'sim.saturated': 'saturatedSeconds' }
  const field = fields[metric]
  /** @type {{ value: number, where: string } | null} */
  let worst = null
  for (const d of result.distributions) {
    for (const s of d.simulatorList) {
      const value = s.health?.[field]
      if (typeof value === 'number' && (worst === null || value > worst.value)) worst = { value, where: `${s.id}, ${d.name}` }
    }
  }
  if (!worst) return { value: null, actual: `${metric}: no data (no simulator reported its health)` }
  const shown = field === 'cpuPctMax' ? formatPct(worst.value) : field === 'saturatedSeconds' ? `${worst.value}s` : formatMs(worst.value)
  return { value: worst.value, actual: `${metric} ${shown} (${worst.where})` }
}

/**
 * Reconnect storms of every simulator of every distribution: the worst time to recover, the
 * deliveries lost in their gaps, or the clients that never came back.
 * @param {import('../../lib/schema/result-schema.js').RunResult} result
 * @param {string} metric recover.p50 … recover.max, lost or unreturned
 */
function measureStorms (result, metric) {
  const storms = result.distributions.flatMap((d) => (d.clients.storms ?? []).map((s) => ({ ...s, where: `${s.simulator}, ${d.name}` })))
  const inStorms = `in ${storms.length} storm${storms.length === 1 ? '' : 's'}`
  if (metric === 'unreturned') {
    const away = storms.reduce((sum, s) => sum + s.dropped - s.back, 0)
    return { value: away, actual: `${away} dropped clients never came back ${inStorms}` }
  }
  if (metric === 'lost') {
    const lost = storms.reduce((sum, s) => sum + (s.lost ?? 0), 0)
    const replayed = storms.reduce((sum, s) => sum + (s.replayed ?? 0), 0)
    return { value: lost, actual: `lost ${lost} gap deliveries (${replayed} replayed) ${inStorms}` }
  }
  if (storms.length === 0) return { value: null, actual: `${metric}: no data (no reconnect storm in this run)` }
  const key = /** @type {'p50' | 'p90' | 'p99' | 'p100'} */ (metric === 'recover.max' ? 'p100' : metric.slice(8))
  /** @type {{ value: number, where: string } | null} */
  let worst = null
  for (const s of storms) {
    // A share of clients that never came back took forever.
    const value = s.backMs[key] ?? Infinity
    if (worst === null || value > worst.value) worst = { value, where: s.where }
  }
  const w = /** @type {{ value: number, where: string }} */ (worst)
  return { value: w.value, actual: `${metric} ${Number.isFinite(w.value) ? formatMs(w.value) : 'never (not every dropped client came back)'} (${w.where})` }
}
