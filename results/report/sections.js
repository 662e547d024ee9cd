/**
 * The parts of a run report page: header with the verdict, overview with caveats, one
 * section per distribution (rounds, charts, simulators, messages), run details, glossary.
 */
import { formatStorm } from '../../lib/text/format.js'
import { compareLayouts, layoutHostOf, unmeasuredCaveat } from '../text/summary.js'
import { refusedWarning } from '../merge/refused.js'
import { ipcErrorsWarning } from '../collector/ipc.js'
import { formatDate } from '../text/summary.js'
import { formatPublishLine } from '../text/publish-line.js'
import { chartCards, escapeHtml } from './html.js'
import { distributionsTable, messagesTable, reasonsTable, roundsTable, runDetailsTables, simulatorsTable, thresholdsTable } from './tables.js'
import { windowsTable } from './charts/charts-windows.js'
import { customTable, deliveriesTable, loginsTable, namespacesTable, scenarioTable } from './tables-scenario.js'
import { deliveryFaults, missedDeliveries } from '../merge/delivery-rows.js'
import { kindOf } from './compare.js'
import { actionsTable } from './charts/charts-actions.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').RunResult} RunResult
 * @typedef {import('../../lib/schema/result-schema.js').DistributionResult} DistributionResult
 * @typedef {import('./html.js').ChartSpec} ChartSpec
 */

/** @param {number} ms */
function duration (ms) {
  const s = Math.max(0, Math.round(ms / 1000))
  return s >= 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s} s`
}

/**
 * @param {RunResult} result
 * @param {number | undefined} generatedAt
 */
export function header (result, generatedAt) {
  const verdicts = result.thresholds ?? []
  const failed = verdicts.filter((v) => !v.ok).length
  const verdict = verdicts.length === 0
    ? '<div class="verdict none">no thresholds</div>'
    : `<div class="verdict ${failed ? 'fail' : 'pass'}">${failed ? 'FAIL' : 'PASS'}: ${failed || verdicts.length} of ${verdicts.length} thresholds</div>`
  const facts = [
    ['target', `${result.target.url}${result.target.reference ? ' (reference server)' : ''}`],
    ['distributions', result.distributions.map((d) => d.name).join(', ') || 'none'],
    ['tool', `${result.tool.name} ${result.tool.version} on ${result.host.hostname}`],
    ...(generatedAt === undefined ? [] : [['report generated', formatDate(generatedAt)]])
  ]
  const nav = [['overview', 'Overview'], ...result.distributions.map((d, i) => [`dist-${i + 1}`, `Distribution ${d.name}`]), ['details', 'Run details']]
  const when = `${formatDate(result.run.startedAt)} · ${duration(result.run.endedAt - result.run.startedAt)}`
  return `<header class="top"><div class="inner"><div>
<h1>${escapeHtml(result.run.name)}</h1>
<p class="sub">ioswarm ${escapeHtml(kindOf(result))} ${escapeHtml(result.run.id)} · ${escapeHtml(when)}</p>
<dl class="facts">${facts.map(([k, v]) => `<dt>${escapeHtml(k)}</dt><dd>${escapeHtml(v)}</dd>`).join('')}</dl>
<nav>${nav.map(([id, text]) => `<a href="#${id}">${escapeHtml(text)}</a>`).join('')}</nav>
</div>${verdict}</div></header>`
}

/**
 * What to know before trusting the numbers: saturated or stale simulators, failures, losses.
 * @param {RunResult} result
 * @returns {string[]}
 */
export function caveats (result) {
  const notes = []
  if (result.from?.workersNote) notes.push(`one simulator of ${result.from.workers} worker processes: ${result.from.workersNote}`)
  if (result.from?.rolledUpMessages) {
    notes.push(`${result.from.rolledUpMessages} older messages were rolled up by the simulator (--keep-messages): ` +
      'they count in the rounds and the delivery table, not per message')
  }
  for (const d of result.distributions) {
    for (const s of d.simulatorList) {
      if (s.health && s.health.saturatedSeconds > 0) {
        notes.push(`${d.name}: simulator ${s.id} was saturated for ${s.health.saturatedSeconds} s; ` +
          'the delays it measured then may be its own, not the server\'s')
      }
      if (s.stale) notes.push(`${d.name}: simulator ${s.id} stopped reporting before the end (stale)`)
    }
    const { missing } = missedDeliveries(d)
    const deliveries = missing === 1 ? 'delivery' : 'deliveries'
    if (missing > 0) notes.push(`${d.name}: ${missing} ${deliveries} missing (clients connected when a message came that never got it)`)
    if (d.clients.failed > 0) notes.push(`${d.name}: ${d.clients.failed} of ${d.clients.target} clients never connected`)
    if (d.messages.length === 0 && !d.lines?.lines) notes.push(`${d.name}: no message reached any simulator`)
    if (d.lines) notes.push(linesNote(d.name, d.lines))
    const unmeasured = unmeasuredCaveat(d)
    if (unmeasured) notes.push(`${d.name}: ${unmeasured.replace(/^CAVEAT: /, '')}`)
    const refused = refusedWarning(d)
    if (refused) notes.push(refused.replace(/^WARNING: /, ''))
    const ipcErrors = ipcErrorsWarning(d)
    if (ipcErrors) notes.push(ipcErrors.replace(/^WARNING: /, ''))
    for (const s of d.clients.storms ?? []) notes.push(`${d.name}: ${s.simulator}: ${formatStorm(s)}`)
    notes.push(...scenarioCaveats(d))
  }
  // Layouts of one total that disagree (the 2012 validity check); agreeing ones are said too.
  notes.push(...compareLayouts(result.distributions, layoutHostOf(result)))
  return notes
}

/**
 * What an application scenario did wrong: copies to the wrong clients or twice, refused
 * namespaces, failed joins, emits never acked, errors in the scenario's hooks.
 * @param {DistributionResult} d
 * @returns {string[]}
 */
function scenarioCaveats (d) {
  const notes = []
  const faults = deliveryFaults(d)
  if (faults && faults.misdelivered > 0) notes.push(`${d.name}: ${faults.misdelivered} copies misdelivered (to clients not in the message's room)`)
  if (faults && faults.duplicated > 0) notes.push(`${d.name}: ${faults.duplicated} copies duplicated (a second copy to one client)`)
  for (const n of d.clients.namespaces ?? []) {
    const refused = Object.values(n.refused).reduce((sum, k) => sum + k, 0)
    if (refused > 0) notes.push(`${d.name}: namespace ${n.name} refused ${refused} connects`)
  }
  const { joins, emits, hooks } = d.scenario ?? {}
  if (joins && joins.failed > 0) notes.push(`${d.name}: ${joins.failed} of ${joins.sent} joins (${joins.event}) failed`)
  if (emits && emits.timedOut + emits.failed > 0) {
    notes.push(`${d.name}: ${emits.timedOut} of ${emits.sent} emits (${emits.event}) were never acked, ${emits.failed} failed`)
  }
  const hookErrors = Object.values(hooks?.errors ?? {}).reduce((sum, k) => sum + k, 0)
  if (hookErrors > 0) notes.push(`${d.name}: the scenario's hooks threw ${hookErrors} errors`)
  return notes
}

/**
 * @param {RunResult} result
 */
export function overview (result) {
  const notes = caveats(result)
  const verdicts = result.thresholds ?? []
  return `<section id="overview"><h2>Overview</h2>
${notes.length
    ? `<ul class="caveats">${notes.map((n) => `<li>${escapeHtml(n)}</li>`).join('')}</ul>`
    : '<p class="muted">No caveats: no simulator was saturated or went stale, every client connected, no delivery went missing.</p>'}
${distributionsTable(result)}
${verdicts.length ? `<h3>Thresholds</h3>${thresholdsTable(verdicts)}` : ''}
${actionsTable(result.actions, result.run.startedAt)}
</section>`
}

/**
 * @param {DistributionResult} d
 * @param {number} index
 * @param {ChartSpec[]} charts
 */
export function distributionSection (d, index, charts) {
  const c = d.clients
  const reasons = reasonsTable(d)
  const deliveries = deliveriesTable(d)
  const scenario = scenarioTable(d)
  const custom = customTable(d)
  const namespaces = namespacesTable(d)
  const logins = loginsTable(d)
  const clientsLine = `${c.connected} of ${c.target} clients connected at the end, ${c.failed} never connected`
  return `<section id="dist-${index + 1}">
<h2>Distribution ${escapeHtml(d.name)}: ${d.simulators} simulators × ${d.clientsPerSimulator} clients</h2>
<p class="sub">${escapeHtml(`${formatDate(d.startedAt)} · ${duration(d.endedAt - d.startedAt)}`)} · ${clientsLine}</p>
${d.windows ? `<h3>Windows</h3>${windowsTable(d)}` : `<h3>Rounds</h3>\n${d.rounds.length ? roundsTable(d) : '<p class="muted">no rounds</p>'}`}
${d.publish ? `<p class="sub publish">${escapeHtml(formatPublishLine(d.publish))}</p>` : ''}
${deliveries ? `<h3>Delivery by namespace, room and event</h3>${deliveries}` : ''}
${scenario ? `<h3>Emits, acks and joins</h3>${scenario}` : ''}
${custom ? `<h3>Custom figures</h3>${custom}` : ''}
${chartCards(charts)}
<h3>Simulators</h3>
${simulatorsTable(d)}
${logins ? `<h3>Logins</h3>${logins}` : ''}
${namespaces ? `<h3>Clients per namespace</h3>${namespaces}` : ''}
${reasons ? `<h3>Connect errors and disconnects</h3>${reasons}` : ''}
${d.windows ? '' : `<details><summary>Per-message numbers (${d.messages.length} messages)</summary>${messagesTable(d)}</details>`}
</section>`
}

/**
 * @param {RunResult} result
 */
export function details (result) {
  const tables = runDetailsTables(result)
  return `<section id="details"><h2>Run details</h2>
<h3>Options</h3>${tables.options}
<h3>Tool and host</h3>${tables.facts}
</section>`
}

/** What the numbers mean, for a reader who never ran the tool. */
export const GLOSSARY = `<footer><dl>
<dt>Relative delay</dt><dd>how much later a client got a message than the first client of its own simulator process got it (no clock sync needed); percentiles are over all clients, merged across simulators</dd>
<dt>Absolute latency</dt><dd>from the sender's timestamp to receipt, corrected by each simulator's measured clock offset; ± is the uncertainty of that measurement</dd>
<dt>Avg of avgs</dt><dd>the mean of the simulators' mean delays: the figure the 2012 rig reported, kept for comparison</dd>
<dt>Simulator floor</dt><dd>the CPU time a simulator process spent between a message's first receipt and its delivery to every expected client (the most over simulators); busiest is the largest share of such a drain's wall time a simulator spent on CPU. Near 100 % (floor close to the spread), the simulator itself may have made the spread; far below, the server or the network did. CPU and wall time are read at the same moments, and CPU past the wall time (the process's helper threads: GC, I/O) is not counted, so busiest is at most 100 %</dd>
<dt>Missing</dt><dd>a client that was connected when a message came and never got it</dd>
<dt>Misdelivered</dt><dd>a copy of a message for a room that reached a client not in that room (counted, never in the delays)</dd>
<dt>Duplicated</dt><dd>a second copy of a message to the same client (counted, never in the delays)</dd>
<dt>Ack time</dt><dd>from a client's emit to the server's acknowledgement (--emit with --emit-ack, a scenario's emitWithAck); join time is the same for --join</dd>
<dt>Saturated</dt><dd>a simulator whose own event loop or CPU was overloaded: numbers taken then may be the simulator's, not the server's</dd>
<dt>Stale</dt><dd>a simulator that stopped reporting before the end of its distribution</dd>
</dl></footer>`

/**
 * What a run without rounds kept of its lines: rolled up as they came, never a row per line.
 * @param {string} name the distribution's
 * @param {import('../../lib/schema/result-schema.js').LineRollup} lines
 */
function linesNote (name, lines) {
  const past = lines.roomsPastBound > 0 ? `; ${lines.roomsPastBound} rooms came past the first ${lines.roomRows} rows and are in their folded row only` : ''
  return `${name}: ${lines.lines} lines (${lines.reports} simulator reports) rolled up as they came, per namespace, room and event in the delivery table ` +
    `and per window in the windows; no row per line${past}`
}
