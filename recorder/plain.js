/**
 * A plain WebSocket recording (no Engine.IO) as what `--protocol websocket` replays: options for
 * a `--config` file, since that protocol takes no scenario module: the URL, the subprotocol the
 * server chose, the client's first message as `--send-on-open`, and what to measure among the
 * messages it received (`--match FIELD=VALUE` on the most common kind, `--id-field` when one
 * field is different in each).
 */
import { headerOf } from './har.js'
import { uniqueField } from './measured.js'

/** Fields that name a message's kind. */
const KIND_FIELD = ['type', 'event', 'op', 'kind', 'action', 'channel', 'topic']

/**
 * @typedef {object} PlainReplay
 * @property {Record<string, unknown>} config options by flag name, for --config
 * @property {string[]} notes what the replay leaves out
 * @property {{ sent: number, received: number }} frames text frames each way
 */

/**
 * @param {import('./sessions.js').PlainSocket} socket
 * @returns {PlainReplay}
 */
export function plainReplay (socket) {
  const sent = socket.frames.filter((f) => f.dir === 'send')
  const received = socket.frames.filter((f) => f.dir === 'receive' && typeof f.data === 'string')
  /** @type {Record<string, unknown>} */
  const config = { protocol: 'websocket', url: socket.url.href }
  const notes = []
  const subprotocol = headerOf(socket.exchange.responseHeaders, 'sec-websocket-protocol')
  if (subprotocol) config.subprotocol = subprotocol
  const firstText = sent.find((f) => typeof f.data === 'string')
  if (firstText) config['send-on-open'] = firstText.data
  if (sent.length > 1) {
    notes.push(`${sent.length - 1} more message(s) the client sent are not replayed (a --protocol websocket client sends one message on open)`)
  }
  if (sent.some((f) => typeof f.data !== 'string')) notes.push('binary messages the client sent are not replayed')
  const objects = received.map((f) => json(/** @type {string} */ (f.data))).filter((o) => o !== null)
  const kind = commonKind(objects)
  const measured = kind === null ? objects : objects.filter((o) => o[kind.field] === kind.value)
  if (kind !== null) config.match = [`${kind.field}=${kind.value}`]
  const idField = uniqueField(measured.slice(0, 50).map((o) => [o]))
  if (idField !== null) config['id-field'] = idField
  if (objects.length < received.length) {
    notes.push(`${received.length - objects.length} received message(s) are not JSON objects: counted by a replay, not measured`)
  }
  return { config, notes, frames: { sent: sent.length, received: received.length } }
}

/**
 * The most common value of a kind-naming field among the messages, when one names them.
 * @param {Record<string, unknown>[]} objects
 * @returns {{ field: string, value: string } | null}
 */
function commonKind (objects) {
  for (const field of KIND_FIELD) {
    /** @type {Map<string, number>} */
    const counts = new Map()
    for (const o of objects) {
      const value = o[field]
      if (typeof value === 'string') counts.set(value, (counts.get(value) ?? 0) + 1)
    }
    const top = [...counts].sort((a, b) => b[1] - a[1])[0]
    if (top !== undefined) return { field, value: top[0] }
  }
  return null
}

/** @param {string} text @returns {Record<string, unknown> | null} */
function json (text) {
  try {
    const value = JSON.parse(text)
    return value && typeof value === 'object' && !Array.isArray(value) ? value : null
  } catch {
    return null
  }
}
