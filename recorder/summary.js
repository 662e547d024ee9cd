/**
 * What `ioswarm record` found, as lines for a person: the sessions, namespaces, events sent
 * and received with counts, the values turned into per-user reads, what could not be
 * translated (with the frame), and the line that replays the scenario.
 */

/**
 * @param {import('./index.js').RecordResult} result
 * @returns {string} lines, each ending with a newline
 */
export function formatRecordSummary ({ model, written, files, from }) {
  const session = model.sessions[0]
  const engine = session.engine
  const lines = [`recorded ${model.sessions.length} Socket.IO session(s) ${from}; replaying ${engine.url.host}${engine.url.pathname} ` +
    `(sid ${engine.sid}, Engine.IO v${engine.eio}, ${engine.transports.join(' then ')}), namespaces ${session.namespaces.join(', ')}`]
  if (model.plain.length > 0) lines.push(`  plain WebSocket connections, not replayed: ${model.plain.map((p) => `${p.url.href} (${p.frames.length} frames)`).join(', ')}`)
  if (model.framesMissing.length > 0) lines.push(`  WebSocket connections written without their frames (${model.creator} leaves them out): ${model.framesMissing.length}; what went over them is not in the scenario`)
  if (model.login) lines.push(`  login: ${model.login.method} ${model.login.url.pathname} (HTTP ${model.login.status}, set a cookie): the scenario's login()`)
  const sent = counts(session.steps.filter((s) => s.kind !== 'connect' && s.kind !== 'disconnect').map((s) => `${s.nsp} ${s.kind === 'join' ? `${s.event}(${s.room})` : s.acked ? `${s.event} (ack)` : s.event}`))
  lines.push(`  sent: ${sent || 'nothing'}`)
  lines.push(`  received: ${session.received.map((r) => `${r.nsp} ${r.event} ×${r.count}`).join(', ') || 'nothing'}`)
  const m = written.measured
  lines.push(`  measured events: ${m.events.join(', ') || 'none'}; id field: ${m.idField ?? 'none found (no field unique per message)'}${m.replyEvent ? `; replies: ${m.replyEvent}` : ''}`)
  for (const p of written.identity.placed) lines.push(`  per user: ${p.where} ${p.key} → ${p.code} (${p.why})`)
  if (written.identity.feeder.secrets.length > 0) lines.push(`  secrets (${written.identity.feeder.secrets.join(', ')}) are in the feeder, not in the scenario: keep ${files.feeder} private`)
  const untranslated = model.sessions.flatMap((s) => s.untranslated)
  if (untranslated.length > 0) {
    lines.push(`  not translated: ${untranslated.length} frame(s)`)
    for (const u of untranslated.slice(0, 10)) lines.push(`    ${u.dir} ${JSON.stringify(u.frame)}: ${u.why}`)
  }
  lines.push(`wrote ${files.scenario}${files.feeder ? ` and ${files.feeder}` : ''}; replay with:`, `  ${written.command.join(' ')}`)
  return lines.map((l) => `${l}\n`).join('')
}

/** "a ×2, b" @param {string[]} names */
function counts (names) {
  const by = new Map()
  for (const n of names) by.set(n, (by.get(n) ?? 0) + 1)
  return [...by].map(([n, c]) => (c > 1 ? `${n} ×${c}` : n)).join(', ')
}
