/**
 * The report's tables of application scenarios: deliveries by namespace, room and event;
 * emits, acks and joins; clients per namespace. Room, namespace and event names and every
 * reason are a server's or a user's text: htmlTable escapes each cell.
 */
import { formatCounts, formatMs } from '../../lib/text/format.js'
import { roomLabel } from '../merge/delivery-rows.js'
import { ackTimeOf } from '../merge/scenario-merge.js'
import { htmlTable } from './html.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').DistributionResult} DistributionResult
 * @typedef {import('../../lib/schema/result-schema.js').DeliveryRow} DeliveryRow
 * @typedef {import('../../lib/schema/result-schema.js').DelaySummary} DelaySummary
 */

/** @param {Record<string, number> | undefined} counts reasons as `reason ×n, …`, largest first */
const reasonsText = (counts) => formatCounts(counts, { times: true, none: '-' })

/** @param {DelaySummary | null | undefined} d */
const timed = (d) => (d && d.count > 0 ? d : null)

/**
 * Per (namespace, room, event): the top rooms by traffic, messages to everyone, the other
 * rooms folded into one row; then each namespace's total (with several) and the total.
 * Null when the result has no breakdown (older results) or no message.
 * @param {DistributionResult} d
 * @returns {string | null}
 */
export function deliveriesTable (d) {
  const b = d.deliveries
  if (!b || b.total.messages === 0) return null
  /** @param {DeliveryRow} r @param {string} scope */
  const row = (r, scope) => {
    const rel = timed(r.relative)
    const abs = timed(r.absolute)
    return [scope === 'row' ? r.namespace : scope, roomLabel(r), r.event, r.messages, `${r.received}/${r.expected}`, r.missing, r.misdelivered, r.duplicates,
      formatMs(rel?.p50), formatMs(rel?.p90), formatMs(rel?.p99), formatMs(rel?.max), formatMs(abs?.p50), formatMs(abs?.p99),
      r.absolute ? `± ${formatMs(r.absolute.uncertaintyMs)}` : '-']
  }
  const list = [
    ...b.rows.map((r) => ({ r, scope: 'row' })),
    ...(b.namespaces.length > 1 ? b.namespaces.map((r) => ({ r, scope: `${r.namespace} (all)` })) : []),
    { r: b.total, scope: 'total' }
  ]
  const note = `<p class="muted">Counts summed and delays merged over the ${d.simulators} simulators (true percentiles). ` +
    `${b.rooms} room${b.rooms === 1 ? '' : 's'} had messages; the ${b.topRooms} with the most traffic ` +
    '(received, missing, misdelivered and duplicated copies) have rows of their own, the others share one per namespace and event. ' +
    'Misdelivered: copies to clients not in the message\'s room; duplicated: second copies to one client. Neither is in the delays.</p>'
  return note + htmlTable(['namespace', 'room', 'event', 'messages', 'reached', 'missing', 'misdelivered', 'duplicated',
    'rel p50', 'rel p90', 'rel p99', 'rel max', 'abs p50', 'abs p99', 'clock ±'], list.map((x) => row(x.r, x.scope)),
  { rowClasses: list.map((x) => (x.r.misdelivered > 0 || x.r.duplicates > 0 || x.r.missing > 0 ? 'warn' : undefined)) })
}

/**
 * Joins (--join), emits (--emit) and a scenario's own emits: counts, times to the ack, reasons;
 * then the hooks' calls and errors. Null without a scenario.
 * @param {DistributionResult} d
 * @returns {string | null}
 */
export function scenarioTable (d) {
  const s = d.scenario
  if (!s) return null
  /** @type {(string | number)[][]} */
  const rows = []
  /** @type {(string | undefined)[]} */
  const classes = []
  /** @param {(string | number)[]} cells @param {boolean} bad */
  const add = (cells, bad) => { rows.push(cells); classes.push(bad ? 'warn' : undefined) }
  /** @param {DelaySummary | null | undefined} t */
  const times = (t) => [formatMs(timed(t)?.p50), formatMs(timed(t)?.p99), formatMs(timed(t)?.max)]
  if (s.joins) {
    const j = s.joins
    add(['joins (--join)', j.event, j.sent, j.acked, `${j.unacked} unacked`, j.failed, ...times(j.time), reasonsText(j.reasons)], j.failed > 0)
  }
  if (s.emits) {
    const e = s.emits
    const outcome = `${e.timedOut} timed out${e.closed ? `, ${e.closed} closed on purpose` : ''}`
    const timed = e.ackTime ? times(e.ackTime) : ['not timed', '-', '-']
    add([`emits (--emit, ${e.emitters} emitters)`, e.event, e.sent, e.acked, outcome, e.failed, ...timed, reasonsText(e.reasons)], e.timedOut + e.failed > 0)
  }
  if (s.hooks) {
    const e = s.hooks.emits
    const outcome = `${e.timedOut} timed out${e.closed ? `, ${e.closed} closed on purpose` : ''}`
    add(['scenario hooks\' emits', '-', e.sent, e.acked, outcome, e.failed, ...times(e.ackTime), '-'], e.timedOut + e.failed > 0)
  }
  if (s.replies) {
    const r = s.replies
    const row = ['replies (events instead of acks)', r.events.join(', ') || '-', r.sent, r.replied, `${r.timedOut} timed out`, r.failed, ...times(r.time)]
    add([...row, reasonsText(r.reasons)], r.timedOut + r.failed > 0)
  }
  if (s.emits?.ackTime && s.hooks) add(['every ack (ack.* thresholds)', '-', '-', '-', '-', '-', ...times(ackTimeOf(s)), '-'], false)
  let html = htmlTable(['what', 'event', 'sent', 'acked', 'no ack', 'failed', 'p50', 'p99', 'max', 'reasons'], rows, { rowClasses: classes })
  if (s.hooks) {
    const calls = Object.entries(s.hooks.calls).map(([hook, n]) => [hook, n, ''])
    const errors = Object.entries(s.hooks.errors).map(([message, n]) => ['error', n, message])
    html += htmlTable(['hook', 'calls', 'error thrown'], [...calls, ...errors], { rowClasses: [...calls.map(() => undefined), ...errors.map(() => 'warn')] })
  }
  return html
}

/**
 * Clients per namespace (--namespace): connected at the end, connects, refusals and drops by
 * reason, summed over the simulators. Null with one namespace '/' (or an older result).
 * @param {DistributionResult} d
 * @returns {string | null}
 */
export function namespacesTable (d) {
  const list = d.clients.namespaces
  if (!list || list.length === 0) return null
  const sum = (/** @type {Record<string, number>} */ counts) => Object.values(counts).reduce((s, n) => s + n, 0)
  const rows = list.map((n) => [n.name, n.connected, n.connects, sum(n.refused), reasonsText(n.refused), sum(n.disconnects), reasonsText(n.disconnects)])
  return htmlTable(['namespace', 'connected at the end', 'connects', 'refused', 'refused by reason', 'drops', 'drops by reason'], rows,
    { rowClasses: list.map((n) => (sum(n.refused) > 0 ? 'warn' : undefined)) })
}

/**
 * The app's own figures (a scenario's ctx.timing and ctx.count), merged over the simulators: one
 * row per name; a last warning row when names past the bound were refused. Null without any.
 * @param {DistributionResult} d
 * @returns {string | null}
 */
export function customTable (d) {
  const custom = d.custom
  if (!custom) return null
  /** @type {(string | number)[][]} */
  const rows = [
    ...Object.entries(custom.timings).map(([name, t]) => [name, 'timing', t.count, formatMs(t.p50), formatMs(t.p90), formatMs(t.p99), formatMs(t.max)]),
    ...Object.entries(custom.counts).map(([name, n]) => [name, 'count', n, '-', '-', '-', '-'])
  ]
  /** @type {(string | undefined)[]} */
  const classes = rows.map(() => undefined)
  if (custom.refused > 0) {
    const names = `${custom.refusedNames.join(', ')}${custom.refused > custom.refusedNames.length ? ', …' : ''}`
    rows.push([`refused: ${names}`, 'past the first 50 names', custom.refused, '-', '-', '-', '-'])
    classes.push('warn')
  }
  return htmlTable(['name', 'kind', 'count', 'p50', 'p90', 'p99', 'max'], rows, { rowClasses: classes })
}

/**
 * The clients' HTTP logins (--login, a scenario's login hook): attempts, successes, logins made
 * again after a refusal (HTTP 401/403, a refused CONNECT), login time and failures by reason. Null without logins (older results).
 * @param {DistributionResult} d
 * @returns {string | null}
 */
export function loginsTable (d) {
  const l = d.measured?.logins
  if (!l) return null
  const failed = Object.values(l.failed).reduce((s, n) => s + n, 0)
  const t = timed(l.time)
  return htmlTable(['request', 'attempts', 'ok', 're-logins (after a refusal)', 'failed', 'p50', 'p99', 'max', 'failures by reason'],
    [[l.request, l.attempts, l.ok, l.relogins, failed, formatMs(t?.p50), formatMs(t?.p99), formatMs(t?.max), reasonsText(l.failed)]],
    { rowClasses: [failed > 0 ? 'warn' : undefined] })
}
