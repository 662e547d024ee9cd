/**
 * What a replay measures: the events the recorded client received (not the replies its emits
 * waited for, nor acks), the field of their payload that tells messages apart (`--id-field`:
 * one present in every sample and different in each), and the `ioswarm simulate` line that
 * replays the scenario with them.
 */

/**
 * @typedef {object} Measured
 * @property {string[]} events
 * @property {string | null} idField a dot path, or null when no field was unique per message
 * @property {string | null} replyEvent the event emits wait for (emitAndWait), when there is one
 */

/**
 * @param {import('./model.js').SessionModel} session
 * @returns {Measured}
 */
export function measuredEvents (session) {
  const replies = new Set(session.steps.map((s) => s.reply?.event).filter((e) => e !== undefined))
  const received = session.received.filter((r) => !replies.has(r.event)).sort((a, b) => b.count - a.count)
  const events = [...new Set(received.map((r) => r.event))]
  /** @type {Map<string, number>} how many messages each candidate field tells apart */
  const votes = new Map()
  for (const r of received) {
    const field = uniqueField(r.samples)
    if (field !== null) votes.set(field, (votes.get(field) ?? 0) + r.count)
  }
  const idField = [...votes.entries()].sort((a, b) => b[1] - a[1])[0]?.[0] ?? null
  return { events, idField, replyEvent: replies.size === 1 ? [...replies][0] ?? null : null }
}

/**
 * A field of the first argument, at the top or one level down, present in every sample with a
 * different string or number each time (two samples at least).
 * @param {unknown[][]} samples
 * @returns {string | null}
 */
export function uniqueField (samples) {
  const firsts = samples.map((args) => args[0])
  if (firsts.length < 2 || !firsts.every((f) => f && typeof f === 'object' && !Array.isArray(f))) return null
  const paths = leafPaths(/** @type {Record<string, unknown>} */ (firsts[0]))
  const preferred = paths.sort((a, b) => rank(a) - rank(b))
  for (const path of preferred) {
    const values = firsts.map((f) => valueAt(f, path))
    if (values.every((v) => typeof v === 'string' || typeof v === 'number') && new Set(values).size === values.length) return path
  }
  return null
}

/** Fields named like ids first, then the shallower. @param {string} path */
const rank = (path) => (/(^|\.)(id|_id|uuid|msgId|messageId)$/i.test(path) ? 0 : 2) + path.split('.').length

/** @param {Record<string, unknown>} value @returns {string[]} */
function leafPaths (value) {
  const paths = []
  for (const [key, v] of Object.entries(value)) {
    if (!/^[\w-]+$/.test(key)) continue
    if (v && typeof v === 'object' && !Array.isArray(v)) {
      for (const [inner, w] of Object.entries(v)) if (/^[\w-]+$/.test(inner) && (typeof w === 'string' || typeof w === 'number')) paths.push(`${key}.${inner}`)
    } else if (typeof v === 'string' || typeof v === 'number') {
      paths.push(key)
    }
  }
  return paths
}

/** @param {unknown} value @param {string} path */
function valueAt (value, path) {
  let at = value
  for (const key of path.split('.')) at = at && typeof at === 'object' ? /** @type {Record<string, unknown>} */ (at)[key] : undefined
  return at
}

/**
 * The command line that replays the scenario.
 * @param {Pick<import('./model.js').SessionModel, 'engine' | 'namespaces'>} session the replayed session's engine; every profile's namespaces
 * @param {Measured} measured
 * @param {{ scenario: string, feeder: string | null }} files
 * @returns {string[]} its words, flag by flag
 */
export function replayCommand (session, measured, files) {
  const url = session.engine.url
  const scheme = url.protocol === 'wss:' || url.protocol === 'https:' ? 'https:' : 'http:'
  const words = [`ioswarm simulate --url ${scheme}//${url.host}`]
  const path = url.pathname.endsWith('/') ? url.pathname : `${url.pathname}/`
  if (path !== '/socket.io/') words.push(`--path ${path}`)
  if (session.engine.eio === 3) words.push('--eio 3')
  const transports = session.engine.transports
  words.push(`--transport ${transports.length > 1 ? 'upgrade' : transports[0]}`)
  for (const nsp of session.namespaces) if (nsp !== '/' || session.namespaces.length > 1) words.push(`--namespace ${nsp}`)
  words.push(`--scenario ${files.scenario}`)
  if (files.feeder) words.push(`--feeder ${files.feeder}`)
  for (const event of measured.events) words.push(`--event ${quote(event)}`)
  if (measured.idField) words.push(`--id-field ${measured.idField}`)
  if (measured.replyEvent) words.push(`--reply-event ${quote(measured.replyEvent)}`)
  words.push('--clients 50')
  return words
}

/** @param {string} word */
const quote = (word) => (/^[\w./:-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`)
