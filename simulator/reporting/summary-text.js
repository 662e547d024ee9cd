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
import { formatCopies, formatCustom, formatEcho, formatEventLines, formatLogins, formatNamespaces, formatNodes, formatScenario, refusedWarning } from '../../results/index.js'

/** Most message rows printed in a summary; the rest are in --json. */
const MAX_MESSAGE_ROWS = 40

/**
 * @param {import('../swarm/swarm.js').Progress} p
 */
export function formatProgress (p) {
  const modes = Object.entries(p.byMode).map(([mode, c]) => `${mode} ${c.connected}/${c.target}`).join(', ')
  return [
    `[${Math.round(p.elapsedMs / 1000)}s] ${p.phase}`,
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
 * @param {import('../../lib/schema/result-schema.js').SimResult} r
 */
export function formatSimSummary (r) {
  const c = r.clients
  const opts = /** @type {{ url?: string, transport?: string, wsClient?: string | null, protocol?: string, insecure?: boolean }} */ (r.options)
  const lines = [
    opts.protocol === 'websocket'
      ? `ioswarm simulate ${r.id}: ${c.target} clients → ${opts.url}, plain WebSocket (client ${opts.wsClient}; ${r.server.protocol})`
      : `ioswarm simulate ${r.id}: ${r.phases ? formatPhasedClients(r.phases, { connected: c.everConnected, as: 'ever connected', rampedDown: r.rampedDown }) : `${c.target} clients`} (${opts.transport}) → ${opts.url}, engine ${r.engine}${opts.wsClient ? ` (WebSocket client ${opts.wsClient})` : ''}, ` +
        `polling agent ${r.agent.keepAlive ? 'keep-alive' : 'new connection per request'}`,
    `${r.phases ? formatPhaseSteps(r.phases, r.rampedDown ?? 0) : `ramp ${formatMs(r.server.rampMs)} (${r.server.rampSource})`}${r.server.handshakeError ? `; handshake: ${r.server.handshakeError}` : ''}`,
    ...(r.server.diagnosis ? [`FIRST CONTACT: ${r.server.diagnosis}`] : []),
    ...(opts.insecure ? [INSECURE_WARNING] : []),
    `clients: ${r.phases
      ? `${formatPhasedClients(r.phases, { connected: c.everConnected, as: 'ever connected', rampedDown: r.rampedDown })}, connected ${c.connected} at the end`
      : `connected ${c.connected}/${c.target} at the end, ever connected ${c.everConnected}`}, never ${c.failed}; ` +
      `attempts ${c.attempts}, reconnects ${c.reconnects}`,
    `by transport: ${Object.entries(c.byTransport).map(([m, v]) => `${m} ${v.connected}/${v.target}${m === 'upgrade' ? ` (${v.upgraded} upgraded)` : ''}`).join(', ')}`,
    r.server.rampMs === 0 && !r.phases
      ? formatAvalanche(c.target, c.acceptTime, c.connectTime, c.errors, c.tlsTime)
      : `connect time: p50 ${formatMs(c.connectTime.p50)}, p99 ${formatMs(c.connectTime.p99)}, max ${formatMs(c.connectTime.max)}${formatTlsBeside(c.tlsTime)}` +
        `${c.acceptTime ? `; handshake accepted (Engine.IO open) p99 ${formatMs(c.acceptTime.p99)}` : ''}`,
    ...formatLogins(r.logins),
    `connect errors: ${formatCounts(c.errors)}`,
    `disconnects: ${formatCounts(c.disconnects)}`
  ]
  const tls = certificateAdvice(c.errors)
  if (tls) lines.push(tls)
  const tooLarge = (c.disconnects[PAYLOAD_TOO_LARGE] ?? 0) + (c.errors[PAYLOAD_TOO_LARGE] ?? 0)
  if (tooLarge > 0) {
    const limit = /** @type {{ maxPayloadBytes?: number }} */ (r.options).maxPayloadBytes
    lines.push(`${tooLarge} clients closed: ${PAYLOAD_TOO_LARGE} (${limit ?? '?'} bytes; a client closed again after reconnecting counts again). ` +
      'Raise --max-payload if the server\'s messages are that big.')
  }
  if (r.sourceAddresses) {
    const refused = r.sourceAddresses.reduce((sum, a) => sum + a.refused, 0)
    const exhausted = r.sourceAddresses.reduce((sum, a) => sum + a.exhausted, 0)
    lines.push(`source addresses: ${r.sourceAddresses.length} (${r.sourceAddresses.slice(0, 4).map((a) => a.address).join(', ')}${r.sourceAddresses.length > 4 ? ', …' : ''}), source ports chosen by the simulator; ` +
      `${refused} refused by the kernel and skipped${exhausted > 0 ? `; ${exhausted} CONNECTS FOUND NO FREE SOURCE PORT (add addresses: --source-address)` : ''}`)
  }
  for (const s of c.storms?.list ?? []) lines.push(formatStorm(s))
  lines.push(...formatNodes(r.nodes))
  if (r.churn) {
    const { minMs, maxMs } = r.churn.lifetimeMs
    lines.push(`churn: ${r.churn.sessionsClosed} sessions closed at the end of their lifetime (${minMs === maxMs ? formatMs(minMs) : `${formatMs(minMs)}..${formatMs(maxMs)}`}) and reopened: ${r.churn.perSecond} connects and as many disconnects per second`)
  }
  const hint = unmeasuredHint(r)
  // ioswarm's broadcasts (each of a round) get a row each; the app's own traffic (a chat's
  // thousands of lines, a feed) a line per event, its messages merged.
  const ownTraffic = r.messages.some((m) => m.round === null) || (r.messageRollups ?? []).some((g) => g.round === null)
  if (r.messages.length === 0 && !ownTraffic) {
    lines.push(`messages: none received${hint ? `. ${hint}` : ''}`)
  } else if (ownTraffic) {
    const total = r.messages.length + (r.messageRollups ?? []).reduce((n, g) => n + g.messages, 0)
    lines.push('', `${total} messages by event (every line merged: --json has the newest ${r.messages.length} one by one):`,
      ...formatEventLines(r.messages, r.messageRollups ?? []))
  } else {
    const rows = r.messages.slice(0, MAX_MESSAGE_ROWS).map((m) => [
      m.id.length > 24 ? `${m.id.slice(0, 23)}…` : m.id, m.received, m.missing,
      formatMs(m.relative.p50), formatMs(m.relative.p90), formatMs(m.relative.p99), formatMs(m.relative.max),
      formatMs(m.absolute?.p50), formatMs(m.absolute?.p99),
      formatMs(m.floor?.cpuMs), formatBusy(m.floor ? busyShare(m.floor.cpuMs, m.floor.spreadMs) : null)
    ])
    lines.push('', table(['message', 'received', 'missing', 'rel p50', 'rel p90', 'rel p99', 'rel max', 'abs p50', 'abs p99', 'floor', 'busy'], rows))
    if (r.messages.length > MAX_MESSAGE_ROWS) lines.push(`… ${r.messages.length - MAX_MESSAGE_ROWS} more messages in --json`)
    const missing = r.messages.reduce((sum, m) => sum + m.missing, 0)
    lines.push(`${r.messages.length} messages, ${missing} missing deliveries`)
    lines.push('floor: CPU this simulator spent from a message\'s first receipt to its last expected one; busy: that share of the wall time ' +
      '(near 100 %: the simulator may have made the spread)')
  }
  for (const g of ownTraffic ? [] : r.messageRollups ?? []) {
    lines.push(`rolled up (older than the newest ${r.recorder?.keepClosed} messages): ${g.event}${g.round === null ? '' : ` round ${g.round}`}: ` +
      `${g.messages} messages, received ${g.received}, missing ${g.missing}, rel p50 ${formatMs(g.relative.p50)}, p99 ${formatMs(g.relative.p99)}, max ${formatMs(g.relative.max)}`)
  }
  const kept = [...r.messages, ...(r.messageRollups ?? [])]
  if (kept.length > 0) {
    const total = (/** @type {(m: (typeof kept)[number]) => number} */ pick) => kept.reduce((sum, m) => sum + pick(m), 0)
    lines.push(formatCopies({ misdelivered: total((m) => m.misdelivered ?? 0), duplicates: total((m) => m.duplicates) }))
    lines.push(...formatEcho(total((m) => m.echo ?? 0)))
  }
  lines.push(...formatNamespaces(c.namespaces), ...formatScenario(r.scenario), ...formatCustom(r.custom))
  if (r.recorder && r.recorder.lateReceipts > 0) {
    lines.push(`late copies: ${r.recorder.lateReceipts} (arrived after their message closed: --message-timeout, or once every expected client had it and 1 s passed; not in the delays)`)
  }
  if (r.recorder && r.recorder.untrackedReceipts > 0) {
    lines.push(`NOT RECORDED: ${r.recorder.untrackedMessages} messages (${r.recorder.untrackedReceipts} copies) arrived while ${r.recorder.maxOpen} messages were open ` +
      '(a flood, or messages that never complete); raise --max-open-messages or shorten --message-timeout')
  }
  const refused = refusedWarning({ name: `simulator ${r.id}`, reportsRefused: r.reportsRefused })
  if (refused) lines.push(refused)
  const h = r.health.summary
  lines.push('', `simulator health: loop delay p99 max ${formatMs(h.loopDelayP99MaxMs)}, cpu max ${Math.round(h.cpuPctMax)}%, ` +
    `rss max ${formatBytes(h.rssMaxBytes)}, saturated ${h.saturatedSeconds}s${h.saturatedSeconds > 0 ? ' (delays measured then include the simulator\'s own lag)' : ''}`)
  return lines.join('\n')
}

/**
 * What arrived that was not measured, when the measured events got nothing: which events and
 * how many, and the flag that would measure them.
 * @param {import('../../lib/schema/result-schema.js').SimResult} r
 * @returns {string | null}
 */
export function unmeasuredHint (r) {
  const other = Object.entries(r.clients.unmeasuredEvents ?? {}).sort((a, b) => b[1] - a[1])
  const measured = r.messages.length + (r.messageRollups?.length ?? 0)
  if (other.length === 0 || measured > 0) return null
  const events = /** @type {{ events?: string[] }} */ (r.options).events ?? []
  const list = other.slice(0, 5).map(([name, n]) => `${JSON.stringify(name)} ×${n}`).join(', ')
  if (/** @type {{ protocol?: string }} */ (r.options).protocol === 'websocket') {
    return `Every message was left out by --match: ${list}${other.length > 5 ? ', …' : ''}. Match what you want measured (--match ${/^[^=\s]+=\S+$/.test(other[0][0]) ? other[0][0] : 'FIELD=VALUE'}), or drop --match to measure every message`
  }
  return `Measured ${events.map((e) => JSON.stringify(e)).join(', ')}, but other events arrived: ${list}${other.length > 5 ? ', …' : ''}. Measure them with --event ${/^[\w.:-]+$/.test(other[0][0]) ? other[0][0] : JSON.stringify(other[0][0])} (or --event '*' for every event)`
}
