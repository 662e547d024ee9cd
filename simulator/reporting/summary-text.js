/**
 * Human output of the simulator: the live progress line and the final summary. Pure
 * functions from progress snapshots and results to strings; the CLI decides where they go.
 */
import { formatBusy, formatBytes, formatCounts, formatMs, formatAvalanche, formatStorm, formatTlsBeside, table } from '../../lib/text/format.js'
import { busyShare } from '../../lib/measure/process-sampler.js'
import { PAYLOAD_TOO_LARGE } from '../wire/limits.js'
import { formatPhaseSteps } from '../phase-options.js'
import { formatPhasedClients } from '../../lib/input/phase-profile.js'
import { certificateHint } from '../../lib/input/tls-trust.js'
import {
  formatCopies, formatCustom, formatEcho, formatEventLines, formatLogins, formatNamespaces, formatNodes, formatRampGuard, formatScenario, refusedWarning
} from '../../results/index.js'

/** Most message rows printed in a summary; the rest are in --json. */
const MAX_MESSAGE_ROWS = 40

/**
 * @param {import('../swarm/swarm.js').Progress} p
 * @param {boolean} [streams] Server-Sent Events: the one connection each client holds is counted under websocket, and named for what it is
 */
export function formatProgress (p, streams = false) {
  const modes = Object.entries(p.byMode).map(([mode, c]) => `${streams && mode === 'websocket' ? 'event stream' : mode} ${c.connected}/${c.target}`).join(', ')
  return [
    `[${Math.round(p.elapsedMs / 1000)}s] ${p.phase}`,
    ...(p.rampHeld ? [`ramp held: ${p.rampHeld}`] : []),
    `connected ${p.connected}/${p.target} (${modes})`,
    `messages ${p.messages}${p.untrackedReceipts ? ` (${p.untrackedReceipts} copies NOT recorded: --max-open-messages)` : ''}`,
    `last p99 ${formatMs(p.lastRelativeP99Ms)}`,
    `errors ${p.errors}`,
    `sim loop p99 ${formatMs(p.health.loopDelayP99Ms)} cpu ${Math.round(p.health.cpuPct)}%`
  ].join('  ')
}

/**
 * What to do about connect errors that were certificate failures (`websocket error
 * (DEPTH_ZERO_SELF_SIGNED_CERT)`, …), or '' when none was.
 * @param {Record<string, number>} errors connect errors by reason
 */
export function certificateAdvice (errors) {
  for (const reason in errors) {
    const hint = certificateHint(/\(([A-Z_]+)\)$/.exec(reason)?.[1])
    if (hint) return `TLS: ${hint}`
  }
  return ''
}

/** What --insecure prints, in the summary and when the swarm starts. */
export const INSECURE_WARNING = 'INSECURE: TLS certificates were NOT verified (--insecure): any server, or anyone in between, was accepted'

/**
 * @typedef {import('../../lib/schema/result-schema.js').SimResult} SimResult
 * @typedef {{ url?: string, transport?: string, wsClient?: string | null, protocol?: string, insecure?: boolean, maxPayloadBytes?: number }} ShownOptions
 */

/**
 * The simulator's final summary: one section after the other, each a function below.
 * @param {SimResult} r
 */
export function formatSimSummary (r) {
  const c = r.clients
  return [
    headLine(r),
    rampLine(r),
    ...(r.server.diagnosis ? [`FIRST CONTACT: ${r.server.diagnosis}`] : []),
    ...(optionsOf(r).insecure ? [INSECURE_WARNING] : []),
    clientsLine(r),
    byTransportLine(c.byTransport, optionsOf(r).protocol === 'sse'),
    connectTimeLine(r),
    ...formatLogins(r.logins),
    `connect errors: ${formatCounts(c.errors)}`,
    `disconnects: ${formatCounts(c.disconnects)}`,
    ...[certificateAdvice(c.errors)].filter((line) => line !== ''),
    ...tooLargeLines(r),
    ...sourceAddressLines(r),
    ...(c.storms?.list ?? []).map(formatStorm),
    ...formatNodes(r.nodes),
    ...churnLines(r),
    ...formatRampGuard(r.rampGuard),
    ...messageLines(r),
    ...copiesLines(r),
    ...formatNamespaces(c.namespaces),
    ...formatScenario(r.scenario),
    ...formatCustom(r.custom),
    ...recorderLines(r),
    ...[refusedWarning({ name: `simulator ${r.id}`, reportsRefused: r.reportsRefused })].filter((line) => Boolean(line)),
    '',
    healthLine(r.health.summary)
  ].join('\n')
}

/** @param {SimResult} r */
function optionsOf (r) {
  return /** @type {ShownOptions} */ (r.options)
}

/**
 * The first line: the simulator, its clients, the server and how they reach it.
 * @param {SimResult} r
 */
function headLine (r) {
  const c = r.clients
  const opts = optionsOf(r)
  if (opts.protocol === 'sse') return `ioswarm simulate ${r.id}: ${c.target} clients → ${opts.url}, ${r.server.protocol}`
  if (opts.protocol === 'websocket') {
    return `ioswarm simulate ${r.id}: ${c.target} clients → ${opts.url}, plain WebSocket (client ${opts.wsClient}; ${r.server.protocol})`
  }
  const clients = r.phases ? phasedClients(r, r.phases) : `${c.target} clients`
  const wsClient = opts.wsClient ? ` (WebSocket client ${opts.wsClient})` : ''
  const agent = r.agent.keepAlive ? 'keep-alive' : 'new connection per request'
  return `ioswarm simulate ${r.id}: ${clients} (${opts.transport}) → ${opts.url}, engine ${r.engine}${wsClient}, polling agent ${agent}`
}

/**
 * @param {SimResult} r
 * @param {NonNullable<SimResult['phases']>} phases
 */
function phasedClients (r, phases) {
  return formatPhasedClients(phases, { connected: r.clients.everConnected, as: 'ever connected', rampedDown: r.rampedDown })
}

/**
 * How the clients were opened (the ramp, or the steps of --phases), and a failed handshake.
 * @param {SimResult} r
 */
function rampLine (r) {
  const opened = r.phases ? formatPhaseSteps(r.phases, r.rampedDown ?? 0) : `ramp ${formatMs(r.server.rampMs)} (${r.server.rampSource})`
  return `${opened}${r.server.handshakeError ? `; handshake: ${r.server.handshakeError}` : ''}`
}

/** @param {SimResult} r */
function clientsLine (r) {
  const c = r.clients
  const connected = r.phases
    ? `${phasedClients(r, r.phases)}, connected ${c.connected} at the end`
    : `connected ${c.connected}/${c.target} at the end, ever connected ${c.everConnected}`
  return `clients: ${connected}, never ${c.failed}; attempts ${c.attempts}, reconnects ${c.reconnects}`
}

/**
 * @param {SimResult['clients']['byTransport']} byTransport
 * @param {boolean} streams Server-Sent Events: each client's one connection is counted under websocket, and named for what it is
 */
function byTransportLine (byTransport, streams) {
  if (streams) return `by transport: event stream ${byTransport.websocket?.connected ?? 0}/${byTransport.websocket?.target ?? 0}`
  const modes = Object.entries(byTransport).map(([m, v]) => `${m} ${v.connected}/${v.target}${m === 'upgrade' ? ` (${v.upgraded} upgraded)` : ''}`)
  return `by transport: ${modes.join(', ')}`
}

/**
 * The connect times: an avalanche's own line when every client opened at once.
 * @param {SimResult} r
 */
function connectTimeLine (r) {
  const c = r.clients
  if (r.server.rampMs === 0 && !r.phases) return formatAvalanche(c.target, c.acceptTime, c.connectTime, c.errors, c.tlsTime)
  const times = `p50 ${formatMs(c.connectTime.p50)}, p99 ${formatMs(c.connectTime.p99)}, max ${formatMs(c.connectTime.max)}`
  const accepted = c.acceptTime ? `; handshake accepted (Engine.IO open) p99 ${formatMs(c.acceptTime.p99)}` : ''
  return `connect time: ${times}${formatTlsBeside(c.tlsTime)}${accepted}`
}

/**
 * Clients closed for a message over --max-payload, with what to do about it.
 * @param {SimResult} r
 * @returns {string[]}
 */
function tooLargeLines (r) {
  const c = r.clients
  const tooLarge = (c.disconnects[PAYLOAD_TOO_LARGE] ?? 0) + (c.errors[PAYLOAD_TOO_LARGE] ?? 0)
  if (tooLarge === 0) return []
  const limit = optionsOf(r).maxPayloadBytes
  return [`${tooLarge} clients closed: ${PAYLOAD_TOO_LARGE} (${limit ?? '?'} bytes; a client closed again after reconnecting counts again). ` +
    'Raise --max-payload if the server\'s messages are that big.']
}

/**
 * --source-address: the addresses, and the connects the kernel refused or that found no port.
 * @param {SimResult} r
 * @returns {string[]}
 */
function sourceAddressLines (r) {
  if (!r.sourceAddresses) return []
  const refused = r.sourceAddresses.reduce((sum, a) => sum + a.refused, 0)
  const exhausted = r.sourceAddresses.reduce((sum, a) => sum + a.exhausted, 0)
  const shown = `${r.sourceAddresses.slice(0, 4).map((a) => a.address).join(', ')}${r.sourceAddresses.length > 4 ? ', …' : ''}`
  const noPort = exhausted > 0 ? `; ${exhausted} CONNECTS FOUND NO FREE SOURCE PORT (add addresses: --source-address)` : ''
  return [`source addresses: ${r.sourceAddresses.length} (${shown}), source ports chosen by the simulator; ` +
    `${refused} refused by the kernel and skipped${noPort}`]
}

/**
 * --session-lifetime: the sessions closed and reopened.
 * @param {SimResult} r
 * @returns {string[]}
 */
function churnLines (r) {
  if (!r.churn) return []
  const { minMs, maxMs } = r.churn.lifetimeMs
  const lifetime = minMs === maxMs ? formatMs(minMs) : `${formatMs(minMs)}..${formatMs(maxMs)}`
  return [`churn: ${r.churn.sessionsClosed} sessions closed at the end of their lifetime (${lifetime}) and reopened: ` +
    `${r.churn.perSecond} connects and as many disconnects per second`]
}

/**
 * The messages: ioswarm's broadcasts (each of a round) get a row each; the app's own traffic
 * (a chat's thousands of lines, a feed) a line per event, its messages merged.
 * @param {SimResult} r
 * @returns {string[]}
 */
function messageLines (r) {
  const rollups = r.messageRollups ?? []
  const ownTraffic = r.messages.some((m) => m.round === null) || rollups.some((g) => g.round === null)
  if (ownTraffic) {
    const total = r.messages.length + rollups.reduce((n, g) => n + g.messages, 0)
    return ['', `${total} messages by event (every line merged: --json has the newest ${r.messages.length} one by one):`,
      ...formatEventLines(r.messages, rollups)]
  }
  const rolledUp = rollups.map((g) => rollupLine(g, r.recorder?.keepClosed))
  if (r.messages.length === 0) {
    const hint = unmeasuredHint(r)
    return [`messages: none received${hint ? `. ${hint}` : ''}`, ...rolledUp]
  }
  return ['', ...messageTable(r.messages), ...rolledUp]
}

/**
 * A row per message (the first MAX_MESSAGE_ROWS), then their count and what the floor means.
 * @param {SimResult['messages']} messages
 * @returns {string[]}
 */
function messageTable (messages) {
  const rows = messages.slice(0, MAX_MESSAGE_ROWS).map((m) => [
    m.id.length > 24 ? `${m.id.slice(0, 23)}…` : m.id, m.received, m.missing,
    formatMs(m.relative.p50), formatMs(m.relative.p90), formatMs(m.relative.p99), formatMs(m.relative.max),
    formatMs(m.absolute?.p50), formatMs(m.absolute?.p99),
    formatMs(m.floor?.cpuMs), formatBusy(m.floor ? busyShare(m.floor.cpuMs, m.floor.spreadMs) : null)
  ])
  const header = ['message', 'received', 'missing', 'rel p50', 'rel p90', 'rel p99', 'rel max', 'abs p50', 'abs p99', 'floor', 'busy']
  const missing = messages.reduce((sum, m) => sum + m.missing, 0)
  return [
    table(header, rows),
    ...(messages.length > MAX_MESSAGE_ROWS ? [`… ${messages.length - MAX_MESSAGE_ROWS} more messages in --json`] : []),
    `${messages.length} messages, ${missing} missing deliveries`,
    'floor: CPU this simulator spent from a message\'s first receipt to its last expected one; busy: that share of the wall time ' +
      '(near 100 %: the simulator may have made the spread)'
  ]
}

/**
 * @param {NonNullable<SimResult['messageRollups']>[number]} g
 * @param {number | undefined} keepClosed
 */
function rollupLine (g, keepClosed) {
  const delays = `rel p50 ${formatMs(g.relative.p50)}, p99 ${formatMs(g.relative.p99)}, max ${formatMs(g.relative.max)}`
  return `rolled up (older than the newest ${keepClosed} messages): ${g.event}${g.round === null ? '' : ` round ${g.round}`}: ` +
    `${g.messages} messages, received ${g.received}, missing ${g.missing}, ${delays}`
}

/**
 * Copies that should not have come (misdelivered, duplicated) and the clients' own echoes.
 * @param {SimResult} r
 * @returns {string[]}
 */
function copiesLines (r) {
  const kept = [...r.messages, ...(r.messageRollups ?? [])]
  if (kept.length === 0) return []
  const total = (/** @type {(m: (typeof kept)[number]) => number} */ pick) => kept.reduce((sum, m) => sum + pick(m), 0)
  return [
    formatCopies({ misdelivered: total((m) => m.misdelivered ?? 0), duplicates: total((m) => m.duplicates) }),
    ...formatEcho(total((m) => m.echo ?? 0))
  ]
}

/**
 * What the recorder could not measure: copies after their message closed, and messages beyond
 * --max-open-messages.
 * @param {SimResult} r
 * @returns {string[]}
 */
function recorderLines (r) {
  const rec = r.recorder
  if (!rec) return []
  const lines = []
  if (rec.lateReceipts > 0) {
    lines.push(`late copies: ${rec.lateReceipts} (arrived after their message closed: --message-timeout, ` +
      'or once every expected client had it and 1 s passed; not in the delays)')
  }
  if (rec.untrackedReceipts > 0) {
    lines.push(`NOT RECORDED: ${rec.untrackedMessages} messages (${rec.untrackedReceipts} copies) arrived while ${rec.maxOpen} messages were open ` +
      '(a flood, or messages that never complete); raise --max-open-messages or shorten --message-timeout')
  }
  return lines
}

/** @param {SimResult['health']['summary']} h */
function healthLine (h) {
  const saturated = h.saturatedSeconds > 0 ? ' (delays measured then include the simulator\'s own lag)' : ''
  return `simulator health: loop delay p99 max ${formatMs(h.loopDelayP99MaxMs)}, cpu max ${Math.round(h.cpuPctMax)}%, ` +
    `rss max ${formatBytes(h.rssMaxBytes)}, saturated ${h.saturatedSeconds}s${saturated}`
}

/**
 * What arrived that was not measured, when the measured events got nothing: which events and
 * how many, and the flag that would measure them.
 * @param {import('../../lib/schema/result-schema.js').SimResult} r
 * @returns {string | null}
 */
function unmeasuredHint (r) {
  const other = Object.entries(r.clients.unmeasuredEvents ?? {}).sort((a, b) => b[1] - a[1])
  const measured = r.messages.length + (r.messageRollups?.length ?? 0)
  if (other.length === 0 || measured > 0) return null
  const events = /** @type {{ events?: string[] }} */ (r.options).events ?? []
  const list = `${other.slice(0, 5).map(([name, n]) => `${JSON.stringify(name)} ×${n}`).join(', ')}${other.length > 5 ? ', …' : ''}`
  const top = other[0][0]
  if (/** @type {{ protocol?: string }} */ (r.options).protocol === 'websocket') {
    const match = /^[^=\s]+=\S+$/.test(top) ? top : 'FIELD=VALUE'
    return `Every message was left out by --match: ${list}. Match what you want measured (--match ${match}), or drop --match to measure every message`
  }
  const event = /^[\w.:-]+$/.test(top) ? top : JSON.stringify(top)
  const wanted = events.map((e) => JSON.stringify(e)).join(', ')
  return `Measured ${wanted}, but other events arrived: ${list}. Measure them with --event ${event} (or --event '*' for every event)`
}
