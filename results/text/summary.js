/**
 * What a person reads in the terminal after a run or a report: aligned tables per
 * distribution and round, the simulators' health in one line, stale simulators named,
 * and threshold verdicts. Returns strings; the CLI prints them to stderr.
 */
import { formatBusy, formatMs, formatAvalanche, formatStorm, formatTlsBeside, plain, table } from '../../lib/text/format.js'

import { formatPhasedClients } from '../../lib/input/phase-profile.js'
import { deliveryFaults } from '../merge/delivery-rows.js'
import { formatCopies, formatDeliveryTable, formatEcho, formatCustom, formatNamespaces, formatScenario } from './scenario-text.js'
import { formatNodes } from './node-lines.js'
import { windowLabel, worstWindow } from '../../lib/text/window-text.js'
import { formatLogins } from './login-lines.js'
import { formatRampGuard } from './ramp-guard-line.js'
import { scenarioNumbers } from '../merge/scenario-merge.js'
import { refusedWarning } from '../merge/refused.js'
import { ipcErrorsWarning } from '../collector/ipc.js'
import { formatPublishLine } from './publish-line.js'

export { plain }

/**
 * @typedef {import('../../lib/schema/result-schema.js').RunResult} RunResult
 * @typedef {import('../../lib/schema/result-schema.js').DistributionResult} DistributionResult
 * @typedef {import('../../lib/schema/result-schema.js').ThresholdVerdict} ThresholdVerdict
 */

/**
 * @typedef {object} HealthOverview the worst simulator of a distribution, per measure
 * @property {number} simulators
 * @property {{ ms: number, simulator: string } | null} loopDelayP99 worst one-second event-loop delay p99
 * @property {{ pct: number, simulator: string } | null} cpu highest CPU, % of one core
 * @property {{ seconds: number, simulator: string }[]} saturated simulators that were saturated, worst first
 * @property {string[]} stale ids of simulators that stopped reporting before the end
 */

/**
 * A distribution without rounds (a simulate result of an app's own traffic): its messages in one line.
 * @param {DistributionResult} d
 */
function noRounds (d) {
  const t = d.deliveries?.total
  if (!t || t.messages === 0) return 'no rounds'
  const rel = t.relative.count ? t.relative : null
  return `no rounds; all ${t.messages} messages: reached ${reachedOf(t)}, missing ${t.missing}, ` +
    `rel p50 ${formatMs(rel?.p50)}, p99 ${formatMs(rel?.p99)}, max ${formatMs(rel?.max)}, abs p99 ${formatMs(t.absolute?.count ? t.absolute.p99 : null)}` +
    (d.windows ? `; ${windowsLine(d.windows)}` : '')
}

/**
 * A run's windows in a few words: how many, and the worst of them for missing and ack p99.
 * @param {import('../../lib/schema/result-schema.js').WindowResult[]} windows
 */
function windowsLine (windows) {
  const seconds = windows.length ? (windows[0].endAt - windows[0].startAt) / 1000 : 0
  const missing = worstWindow(windows, (w) => (w.missing > 0 ? w.missing : null))
  const ack = worstWindow(windows, (w) => (w.emits.ackTime.count > 0 ? w.emits.ackTime.p99 : null))
  return `${windows.length} windows of ${seconds} s` +
    (missing ? `, most missing ${missing.value} in ${windowLabel(missing.window)}` : ', none missing a delivery') +
    (ack ? `, worst ack p99 ${formatMs(ack.value)} in ${windowLabel(ack.window)}` : '')
}

/**
 * Summarises the simulators' health of one distribution.
 * @param {DistributionResult} distribution
 * @returns {HealthOverview}
 */
export function summarizeHealth (distribution) {
  /** @type {HealthOverview} */
  const overview = { simulators: distribution.simulatorList.length, loopDelayP99: null, cpu: null, saturated: [], stale: [] }
  for (const s of distribution.simulatorList) {
    if (s.stale) overview.stale.push(s.id)
    if (!s.health) continue
    const loopDelayMs = s.health.loopDelayP99MaxMs
    if (!overview.loopDelayP99 || loopDelayMs > overview.loopDelayP99.ms) overview.loopDelayP99 = { ms: loopDelayMs, simulator: s.id }
    if (!overview.cpu || s.health.cpuPctMax > overview.cpu.pct) overview.cpu = { pct: s.health.cpuPctMax, simulator: s.id }
    if (s.health.saturatedSeconds > 0) overview.saturated.push({ seconds: s.health.saturatedSeconds, simulator: s.id })
  }
  overview.saturated.sort((a, b) => b.seconds - a.seconds)
  return overview
}

/**
 * The numbers of a run as plain data, for `--json` (rounds as in the result, health overviews,
 * delivery totals, joins and emits without their histograms).
 * @param {RunResult} result
 */
export function summarizeRun (result) {
  return {
    run: result.run,
    target: result.target,
    distributions: result.distributions.map((d) => ({
      name: d.name,
      clients: d.clients,
      rounds: d.rounds,
      connectTime: { p50: d.connectTime.p50, p99: d.connectTime.p99, max: d.connectTime.max },
      health: summarizeHealth(d),
      ...(d.deliveries ? { deliveries: { total: d.deliveries.total, namespaces: d.deliveries.namespaces } } : {}),
      ...(d.scenario ? { scenario: scenarioNumbers(d.scenario) } : {})
    }))
  }
}

/**
 * Epoch ms as `2024-06-01 10:00:00 UTC` (UTC so the same result reads the same everywhere).
 * @param {number} epochMs
 */
export function formatDate (epochMs) {
  if (!Number.isFinite(epochMs)) return '-'
  return `${new Date(epochMs).toISOString().slice(0, 19).replace('T', ' ')} UTC`
}

/**
 * The health one-liner: worst event-loop delay, CPU and saturation, with the simulator named.
 * @param {HealthOverview} h
 */
function formatHealth (h) {
  if (!h.loopDelayP99 || !h.cpu) return `health: not reported by the ${h.simulators} simulators`
  const saturated = h.saturated.length
    ? `saturated ${h.saturated.map((s) => `${s.seconds}s (${plain(s.simulator)})`).join(', ')}`
    : 'never saturated'
  return `health of ${h.simulators} simulators: worst event-loop p99 ${formatMs(h.loopDelayP99.ms)} (${plain(h.loopDelayP99.simulator)}), ` +
    `CPU max ${Math.round(h.cpu.pct)}% (${plain(h.cpu.simulator)}), ${saturated}`
}

/**
 * Where a distribution's clients on stale simulators went: a stale simulator sent no final
 * report, so its clients count in the target and not as connected.
 * @param {DistributionResult} d
 */
function staleClients (d) {
  const stale = (d.simulatorList ?? []).filter((s) => s.stale)
  if (stale.length === 0) return ''
  const target = stale.reduce((sum, s) => sum + s.clients.target, 0)
  const connected = stale.reduce((sum, s) => sum + s.clients.connected, 0)
  return ` (${target} of them on ${stale.length} stale simulator${stale.length === 1 ? '' : 's'}, ${connected} connected when last heard from)`
}

/**
 * Aligned tables per distribution and round, then health and stale simulators.
 * @param {RunResult} result
 * @returns {string}
 */
export function formatRunSummary (result) {
  const target = `${plain(result.target.url)}${result.target.reference ? ' (reference server)' : ''}`
  const seconds = Math.round((result.run.endedAt - result.run.startedAt) / 1000)
  const named = result.run.name === result.run.id ? plain(result.run.id) : `${plain(result.run.name)} (${plain(result.run.id)})`
  const lines = [`run ${named}, ${formatDate(result.run.startedAt)}, ${seconds}s, target ${target}`]
  for (const d of result.distributions) {
    const c = d.clients
    // The simulators that took part (local ones and those that joined through Redis), as registered.
    const simulators = d.simulatorList?.length || d.simulators
    const layout = simulators === d.simulators && simulators * d.clientsPerSimulator === c.target
      ? `${simulators} simulators x ${d.clientsPerSimulator} clients`
      : `${simulators} simulator${simulators === 1 ? '' : 's'}, ${c.target} clients`
    // --phases: the target at the end is the last step's (0 after a ramp down to 0); say the peak and the profile.
    const clientsLine = d.phases
      ? `${simulators} simulator${simulators === 1 ? '' : 's'}, ` +
        formatPhasedClients(d.phases, { connected: peakConnected(d), as: 'connected at peak', rampedDown: d.rampedDown })
      : `${layout}, connected ${c.connected}/${c.target}`
    const connectP99 = `${formatMs(d.connectTime.p99)}${formatTlsBeside(d.tlsTime)}`
    lines.push('', `distribution ${plain(d.name)}: ${clientsLine}${staleClients(d)}, failed ${c.failed}, connect p99 ${connectP99}`)
    const avalanche = /** @type {{ rampMs?: unknown }} */ (result.options).rampMs === 0
    if (avalanche) lines.push(formatAvalanche(c.target, d.acceptTime, d.connectTime, c.errors ?? {}, d.tlsTime))
    lines.push(d.rounds.length ? formatRounds(d) : noRounds(d))
    if (d.publish) lines.push(formatPublishLine(d.publish))
    const unmeasured = unmeasuredCaveat(d)
    if (unmeasured) lines.push(unmeasured)
    lines.push(...scenarioLines(d))
    lines.push(...formatNodes(d.nodes), ...formatLogins(d.measured?.logins), ...formatRampGuard(d.measured?.rampGuard))
    for (const s of d.clients.storms ?? []) lines.push(`${plain(s.simulator)}: ${formatStorm(s)}`)
    const health = summarizeHealth(d)
    lines.push(formatHealth(health))
    lines.push(`stale simulators: ${health.stale.length ? health.stale.map(plain).join(', ') : 'none'}`)
    const refused = refusedWarning(d)
    if (refused) lines.push(refused)
    const ipcErrors = ipcErrorsWarning(d)
    if (ipcErrors) lines.push(ipcErrors)
  }
  const layouts = compareLayouts(result.distributions, layoutHostOf(result))
  if (layouts.length > 0) lines.push('', ...layouts)
  if (result.distributions.some((d) => d.rounds.some((r) => r.floor))) lines.push('', FLOOR_NOTE)
  return lines.join('\n')
}

/**
 * What an application scenario adds: wrong and second copies, clients per namespace, joins,
 * emits, hooks, and the deliveries by namespace, room and event (absent from older results).
 * @param {DistributionResult} d
 * @returns {string[]}
 */
function scenarioLines (d) {
  const faults = deliveryFaults(d)
  const table = formatDeliveryTable(d.deliveries)
  return [
    ...(faults ? [formatCopies({ misdelivered: faults.misdelivered, duplicates: faults.duplicated }), ...formatEcho(faults.echo)] : []),
    ...formatNamespaces(d.clients.namespaces),
    ...formatScenario(d.scenario),
    ...formatCustom(d.custom),
    ...(table ? [table] : [])
  ]
}

/**
 * Copies received by clients not owed the message (late joiners: connected after its send),
 * so that received can exceed expected: `received − (expected − missing)`.
 * @param {{ received: number, expected: number, missing: number }} r
 */
export function notOwed (r) {
  return Math.max(0, r.received - (r.expected - r.missing))
}

/**
 * `received/expected`, with the copies nobody was owed beside it when there are any.
 * @param {{ received: number, expected: number, missing: number }} r
 */
function reachedOf (r) {
  const extra = notOwed(r)
  return `${r.received}/${r.expected}${extra ? ` (${extra} not owed)` : ''}`
}

/** What `not owed` means, printed under figures that have it. */
export const NOT_OWED_NOTE = 'not owed: copies received by clients that connected after the message was sent (late joiners): received, never expected'

/** @param {DistributionResult} d */
function formatRounds (d) {
  const header = ['round', 'plan', 'messages', 'reached', 'missing', 'rel p50', 'rel p99', 'rel max', 'abs p50', 'abs p99', 'avg of avgs',
    'floor p50', 'floor max', 'busiest']
  const rows = d.rounds.map((r) => {
    const rel = r.relative.count > 0 ? r.relative : null
    const abs = r.absolute && r.absolute.count > 0 ? r.absolute : null
    return [r.round, `${r.count}x${r.intervalMs}ms`, r.messages, reachedOf(r), r.missing,
      formatMs(rel?.p50), formatMs(rel?.p99), formatMs(rel?.max), formatMs(abs?.p50), formatMs(abs?.p99),
      rel ? formatMs(r.avgOfAverages.relativeMs) : '-', formatMs(r.floor?.p50Ms), formatMs(r.floor?.maxMs), formatBusy(r.floor?.busyMax)]
  })
  return table(header, rows) + (d.rounds.some((r) => notOwed(r) > 0) ? `\n${NOT_OWED_NOTE}` : '')
}

/** How to read the floor columns of the rounds tables. */
export const FLOOR_NOTE =
  'floor: CPU time a simulator process spent draining a message to its clients (p50 and max over the messages, each the largest over simulators); ' +
  'busiest: the largest share of a drain\'s wall time any simulator spent on CPU. Near 100 %, the simulator itself may have made the spread; far below, the server or the network did.'

/**
 * Threshold verdicts as a table, then one line: all passed, or how many failed.
 * @param {ThresholdVerdict[]} verdicts
 * @returns {string}
 */
export function formatThresholds (verdicts) {
  if (verdicts.length === 0) return 'thresholds: none'
  const failed = verdicts.filter((v) => !v.ok).length
  const rows = verdicts.map((v) => [v.ok ? 'pass' : 'FAIL', plain(v.expression), plain(v.actual)])
  const verdict = failed ? `thresholds: ${failed} of ${verdicts.length} FAILED` : `thresholds: all ${verdicts.length} passed`
  return `${table(['', 'threshold', 'actual'], rows)}\n${verdict}`
}

/**
 * When a distribution measured no message but its clients received other events: which,
 * how many, and the flag that measures them. Measured: a round's deliveries, or without
 * rounds a window's or a message's (the app's own lines, a chat's relayed emits).
 * @param {DistributionResult} d
 * @returns {string | null}
 */
export function unmeasuredCaveat (d) {
  const other = Object.entries(/** @type {{ unmeasuredEvents?: Record<string, number> }} */ (d.clients).unmeasuredEvents ?? {}).sort((a, b) => b[1] - a[1])
  const received = (/** @type {{ received: number }[]} */ list) => list.reduce((sum, r) => sum + r.received, 0)
  if (other.length === 0 || received(d.rounds) + received(d.windows ?? []) + received(d.messages) > 0) return null
  const events = other.slice(0, 5).map(([name, n]) => `${JSON.stringify(plain(name))} ×${n}`).join(', ')
  return `CAVEAT: no ${d.windows ? 'message' : 'broadcast'} was measured, but the clients received other events: ${events}; ` +
    `measure them with --event ${plain(other[0][0])} (or --event '*')`
}

/** Layouts of one total agree when their median relative p50s are this close (share of the larger)… */
const LAYOUT_TOLERANCE = 0.2
/** …or within this many ms (on fast runs a share of a few ms is noise). */
const LAYOUT_TOLERANCE_MS = 5

/**
 * Where the layouts ran, as far as a result tells: the runner's host, its cores, and the busy
 * server processes the run started there (the reference server; none with --target).
 * @typedef {{ hostname: string, cpus: number, servers: number }} LayoutHost
 */

/**
 * @param {{ host?: import('../../lib/schema/result-schema.js').HostFacts, target?: { reference?: boolean } }} result a RunResult
 * @returns {LayoutHost | null}
 */
export function layoutHostOf (result) {
  const host = result.host
  return host && host.cpus > 0 ? { hostname: host.hostname, cpus: host.cpus, servers: result.target?.reference ? 1 : 0 } : null
}

/**
 * The 2012 validity check, made automatic: layouts of the same total number of clients
 * (10x1000 and 20x500) must measure the same (median relative p50 within ±20 % or 5 ms, the
 * same share of missing deliveries). When they do not, the hint names the layout whose delays
 * are higher and why: more busy processes than its host has cores (its simulators and the
 * server the run started: the host's scheduler spreads the delays), or its simulators were
 * busier (a busy simulator makes its own spread), or neither.
 * @param {DistributionResult[]} distributions
 * @param {LayoutHost | null} [host] the runner's host (layoutHostOf): without it, cores are not compared
 * @returns {string[]} one line per pair of layouts that can be compared
 */
export function compareLayouts (distributions, host = null) {
  /** @type {Map<number, DistributionResult[]>} */
  const byTotal = new Map()
  for (const d of distributions) {
    const total = d.clients.target
    byTotal.set(total, [...(byTotal.get(total) ?? []), d])
  }
  const lines = []
  for (const [total, group] of byTotal) {
    for (let k = 1; k < group.length; k++) {
      const [a, b] = [group[0], group[k]]
      const [pa, pb] = [medianP50(a), medianP50(b)]
      if (pa === null || pb === null) continue
      const [ma, mb] = [missingShare(a), missingShare(b)]
      const close = Math.abs(pa - pb) <= Math.max(LAYOUT_TOLERANCE * Math.max(pa, pb), LAYOUT_TOLERANCE_MS)
      const sameMissing = Math.abs(ma - mb) <= 0.01
      const figures = `median rel p50 ${formatMs(pa)} vs ${formatMs(pb)}, missing ${formatShare(ma)} vs ${formatShare(mb)}`
      const crowded = [a, b].flatMap((d) => crowding(d, host) ?? [])
      if (close && sameMissing) {
        const caveat = crowded.length ? `; but ${crowded.map((c) => c.text).join(', and ')}: the host's scheduler shares in both figures` : ''
        const tolerance = `tolerance ±${LAYOUT_TOLERANCE * 100} % or ${LAYOUT_TOLERANCE_MS} ms`
        lines.push(`layouts of ${total} clients: ${plain(a.name)} and ${plain(b.name)} agree (${figures}; ${tolerance})${caveat}`)
      } else {
        // The slower layout: higher delays, or at equal delays more missing deliveries.
        const [slow, fast] = (close ? ma > mb : pa > pb) ? [a, b] : [b, a]
        lines.push(`LAYOUTS DISAGREE, ${total} clients: ${plain(a.name)} vs ${plain(b.name)} (${figures}); ${disagreement(slow, fast, crowded)}`)
      }
    }
  }
  return lines
}

/**
 * Why the slower of two layouts measured worse, and what to do.
 * @param {DistributionResult} slow
 * @param {DistributionResult} fast
 * @param {{ name: string, text: string }[]} crowded the layouts with more busy processes than cores
 */
function disagreement (slow, fast, crowded) {
  const [bs, bf] = [busiest(slow), busiest(fast)]
  const busy = `busiest ${Math.round(bs * 100)} % vs ${Math.round(bf * 100)} %`
  const own = crowded.find((c) => c.name === slow.name)
  if (own) {
    const other = crowded.find((c) => c.name === fast.name)
    const also = other ? ` (and ${other.text})` : ''
    return `${plain(slow.name)}'s delays are higher: ${own.text}, so its spread is the host's scheduler as much as the server's${also}; ` +
      'compare layouts that fit the cores, or put simulators on other hosts'
  }
  const note = crowded.length ? ` (${crowded.map((c) => c.text).join(', and ')}: its figures include the host's scheduler)` : ''
  if (bs > bf) return `${plain(slow.name)}'s simulators were busier (${busy}): add simulators or --workers there and compare again${note}`
  return `${plain(slow.name)}'s delays are higher though its simulators were not busier (${busy}): the simulators' CPU does not explain it; ` +
    `look at the server and the network, or run again on a quiet host${note}`
}

/**
 * The layout's busy processes on the runner's host, when more than its cores.
 * @param {DistributionResult} d
 * @param {LayoutHost | null} host
 * @returns {{ name: string, text: string } | null}
 */
function crowding (d, host) {
  if (!host) return null
  const simulators = d.simulatorList.length ? d.simulatorList.filter((s) => s.hostname === host.hostname).length : d.simulators
  const busy = simulators + host.servers
  if (busy <= host.cpus) return null
  const servers = host.servers === 1 ? 'the reference server' : `${host.servers} servers`
  const parts = `${simulators} simulator${simulators === 1 ? '' : 's'}${host.servers ? ` and ${servers}` : ''}`
  return { name: d.name, text: `${plain(d.name)} put ${busy} busy processes (${parts}) on ${plain(host.hostname)}'s ${host.cpus} cores` }
}

/** @param {DistributionResult} d */
function medianP50 (d) {
  const values = d.rounds.filter((r) => r.relative.count > 0).map((r) => r.relative.p50).sort((x, y) => x - y)
  return values.length ? values[Math.ceil(values.length / 2) - 1] : null
}

/** @param {DistributionResult} d */
function missingShare (d) {
  const expected = d.rounds.reduce((sum, r) => sum + r.expected, 0)
  return expected > 0 ? d.rounds.reduce((sum, r) => sum + r.missing, 0) / expected : 0
}

/** @param {DistributionResult} d the largest share of a drain any simulator spent on CPU */
function busiest (d) {
  return d.rounds.reduce((top, r) => Math.max(top, r.floor?.busyMax ?? 0), 0)
}

/** @param {number} share */
function formatShare (share) {
  return `${Math.round(share * 1000) / 10} %`
}

/**
 * The most clients a phased distribution had connected at once: its fullest window's count (the windows merge every simulator's).
 * @param {RunResult['distributions'][number]} d
 */
function peakConnected (d) {
  return Math.max(d.clients.connected, ...(d.windows ?? []).map((w) => w.clients.connected))
}
