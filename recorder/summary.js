/**
 * What `ioswarm record` found, as lines for a person: the sessions, namespaces, events sent
 * and received with counts, the values turned into per-user reads, what could not be
 * translated (with the frame), and the line that replays the scenario.
 */

/**
 * @param {import('./index.js').RecordResult} result
 * @returns {string} lines, each ending with a newline
 */
export function formatRecordSummary ({ model, written, plain, files, from }) {
  if (written === null) return plainSummary(model, plain, files.scenario, from)
  const session = model.sessions[0]
  const engine = session.engine
  const lines = [`recorded ${model.sessions.length} Socket.IO session(s) ${from}; replaying ${engine.url.host}${engine.url.pathname} ` +
    `(sid ${engine.sid}, Engine.IO v${engine.eio}, ${engine.transports.join(' then ')}), namespaces ${session.namespaces.join(', ')}`]
  for (const other of model.sessions.slice(1)) lines.push(`  ${otherSession(other, session)}`)
  if (model.plain.length > 0) {
    lines.push(`  plain WebSocket connections, not replayed: ${model.plain.map((p) => `${p.url.href} (${p.frames.length} frames)`).join(', ')}`)
  }
  if (model.framesMissing.length > 0) {
    lines.push(`  WebSocket connections written without their frames (${model.creator} leaves them out): ${model.framesMissing.length}; ` +
      'what went over them is not in the scenario')
  }
  if (model.login) lines.push(`  login: ${model.login.method} ${model.login.url.pathname} (HTTP ${model.login.status}, set a cookie): the scenario's login()`)
  lines.push(`  sent: ${sentOf(session) || 'nothing'}`)
  lines.push(`  received: ${session.received.map((r) => `${r.nsp} ${r.event} ×${r.count}`).join(', ') || 'nothing'}`)
  const m = written.measured
  const replies = m.replyEvent ? `; replies: ${m.replyEvent}` : ''
  lines.push(`  measured events: ${m.events.join(', ') || 'none'}; id field: ${m.idField ?? 'none found (no field unique per message)'}${replies}`)
  for (const p of written.identity.placed) lines.push(`  per user: ${p.where} ${p.key} → ${p.code} (${p.why})`)
  const secrets = written.identity.feeder.secrets
  if (secrets.length > 0) lines.push(`  secrets (${secrets.join(', ')}) are in the feeder, not in the scenario: keep ${files.feeder} private`)
  const untranslated = model.sessions.flatMap((s) => s.untranslated)
  if (untranslated.length > 0) {
    lines.push(`  not translated: ${untranslated.length} frame(s)`)
    for (const u of untranslated.slice(0, 10)) lines.push(`    ${u.dir} ${JSON.stringify(u.frame)}: ${u.why}`)
  }
  lines.push(`wrote ${files.scenario}${files.feeder ? ` and ${files.feeder}` : ''}; replay with:`, `  ${written.command.join(' ')}`)
  return lines.map((l) => `${l}\n`).join('')
}

/**
 * A plain WebSocket recording, written as --protocol websocket options.
 * @param {import('./model.js').RecordingModel} model
 * @param {import('./plain.js').PlainReplay | null} plain
 * @param {string} file
 * @param {string} from
 */
function plainSummary (model, plain, file, from) {
  const config = plain?.config ?? {}
  const lines = [`recorded ${model.plain.length} plain WebSocket connection(s) ${from}; replaying ${config.url} ` +
    `(${plain?.frames.sent ?? 0} text frame(s) sent, ${plain?.frames.received ?? 0} received)`]
  for (const [flag, value] of Object.entries(config)) if (flag !== 'protocol' && flag !== 'url') lines.push(`  --${flag} ${JSON.stringify(value)}`)
  for (const note of plain?.notes ?? []) lines.push(`  not replayed: ${note}`)
  lines.push(`wrote ${file}; replay with:`, `  ioswarm simulate --config ${file} --clients 50`)
  return lines.map((l) => `${l}\n`).join('')
}

/**
 * A session not replayed, and why the replayed one was chosen over it.
 * @param {import('./model.js').SessionModel} other
 * @param {import('./model.js').SessionModel} replayed
 */
function otherSession (other, replayed) {
  const e = other.engine
  const why = replayed.steps.length > other.steps.length
    ? `the replayed one sent more (${replayed.steps.length} steps)`
    : 'the replayed one sent as many and started first'
  return `not replayed: sid ${e.sid} (Engine.IO v${e.eio}, ${e.transports.join(' then ')}), namespaces ${other.namespaces.join(', ') || 'none'}, ` +
    `${other.steps.length} step(s): ${sentOf(other) || 'nothing sent'}; ${why}. Record it alone (one tab, one socket) to replay it`
}

/** @param {import('./model.js').SessionModel} session */
function sentOf (session) {
  /** @param {import('./model.js').Step} s */
  const what = (s) => s.kind === 'join' ? `${s.event}(${s.room})` : s.acked ? `${s.event} (ack)` : s.event
  return counts(session.steps.filter((s) => s.kind !== 'connect' && s.kind !== 'disconnect').map((s) => `${s.nsp} ${what(s)}`))
}

/** "a ×2, b" @param {string[]} names */
function counts (names) {
  const by = new Map()
  for (const n of names) by.set(n, (by.get(n) ?? 0) + 1)
  return [...by].map(([n, c]) => (c > 1 ? `${n} ×${c}` : n)).join(', ')
}
