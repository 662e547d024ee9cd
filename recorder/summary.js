/**
 * What `ioswarm record` found, as lines for a person: the sessions, namespaces, events sent
 * and received with counts, the values turned into per-user reads, what could not be
 * translated (with the frame), and the line that replays the scenario.
 */
import { sentOf } from './writer.js'

/**
 * @param {import('./index.js').RecordResult} result
 * @returns {string} lines, each ending with a newline
 */
export function formatRecordSummary ({ model, written, plain, files, from }) {
  if (written === null) return plainSummary(model, plain, files.scenario, from)
  /** @type {string[]} */
  const lines = []
  const plan = written.plan
  const session = plan.profiles[0].session
  const engine = session.engine
  const several = plan.profiles.length > 1
  lines.push(`recorded ${model.sessions.length} Socket.IO session(s) ${from}; replaying ${engine.url.host}${engine.url.pathname} ` +
    `(sid ${engine.sid}, Engine.IO v${engine.eio}, ${engine.transports.join(' then ')}), namespaces ${plan.namespaces.join(', ')}` +
    `${several ? ` as ${plan.profiles.length} client profiles` : ''}`)
  if (several) {
    const cycle = plan.cycle.map((k) => k + 1).join(', ')
    lines.push(`  client profiles, one per distinct session: client i replays profile [${cycle}][i mod ${plan.cycle.length}] ` +
      '(each in the proportion it was recorded); every client connects to every namespace above and only listens where its profile did nothing')
    for (const [k, p] of plan.profiles.entries()) {
      const e = p.session.engine
      const times = p.sessions.length > 1 ? `, recorded ${p.sessions.length} times` : ''
      lines.push(`  profile ${k + 1} (sid ${e.sid}, ${e.transports.join(' then ')}${times}): sent: ${sentOf(p.session) || 'nothing'}`)
    }
  }
  for (const { session: other, why } of plan.left) lines.push(`  ${leftSession(other, why)}`)
  if (model.plain.length > 0) {
    lines.push(`  plain WebSocket connections, not replayed: ${model.plain.map((p) => `${p.url.href} (${p.frames.length} frames)`).join(', ')}`)
  }
  if (model.framesMissing.length > 0) {
    lines.push(`  WebSocket connections written without their frames (${model.creator} leaves them out): ${model.framesMissing.length}; ` +
      'what went over them is not in the scenario')
  }
  if (model.login) lines.push(`  login: ${model.login.method} ${model.login.url.pathname} (HTTP ${model.login.status}, set a cookie): the scenario's login()`)
  if (!several) lines.push(`  sent: ${sentOf(session) || 'nothing'}`)
  if (written.binary.length > 0) {
    lines.push(`  binary data sent by: ${written.binary.join(', ')}; replay with the sio engine (the default): --engine lean sends JSON only`)
  }
  lines.push(`  received: ${receivedOf(plan.profiles.flatMap((p) => p.sessions)) || 'nothing'}`)
  const m = written.measured
  const replies = m.replyEvent ? `; replies: ${m.replyEvent}` : ''
  lines.push(`  measured events: ${m.events.join(', ') || 'none'}; id field: ${m.idField ?? 'none found (no field unique per message)'}${replies}`)
  // Profiles with the same handshake place the same values again: each is named once.
  const placed = new Set(written.identity.placed.map((p) => `  per user: ${p.where} ${p.key} → ${p.code} (${p.why})`))
  lines.push(...placed)
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
 * A session not replayed, and why.
 * @param {import('./model.js').SessionModel} other
 * @param {string} why
 */
function leftSession (other, why) {
  const e = other.engine
  return `not replayed: sid ${e.sid} (Engine.IO v${e.eio}, ${e.transports.join(' then ')}), namespaces ${other.namespaces.join(', ') || 'none'}, ` +
    `${other.steps.length} step(s): ${sentOf(other) || 'nothing sent'}; ${why}`
}

/**
 * The events these sessions received, with counts over all of them: `/chat chat ×3, /chat typing`.
 * @param {import('./model.js').SessionModel[]} sessions
 */
function receivedOf (sessions) {
  const by = new Map()
  for (const r of sessions.flatMap((s) => s.received)) by.set(`${r.nsp} ${r.event}`, (by.get(`${r.nsp} ${r.event}`) ?? 0) + r.count)
  return [...by].map(([n, c]) => `${n} ×${c}`).join(', ')
}
