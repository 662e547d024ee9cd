/**
 * The recording's model: each Socket.IO session's client side as steps in order (connect a
 * namespace with its auth, emit, emit with an ack, join, disconnect) with the time since the
 * previous step, the events it received (counts and samples per namespace and event), and what
 * could not be translated. Built from the HAR's connections (sessions.js) and their decoded
 * packets (packets.js); the scenario writer and the summary read only this.
 */
import { decodeSession } from './packets.js'
import { groupConnections } from './sessions.js'

/** A reply that came as an event is the next event received within this long after an emit (ms). */
const REPLY_WITHIN_MS = 2000
/** Events whose name says the client joins a room. */
const JOIN_EVENT = /^(join|subscribe|enter)([_-]?room|[_-]?channel)?$/i
/** Fields that tie a reply to its request (an id, a reference), unlike a room or a user that many events share. */
const REPLY_KEY = /(^|[_a-z])(id|Id|ID)$|^(ref|nonce|seq|correlation|request)/
/** Samples of received payloads kept per event (to guess the id field). */
const SAMPLES = 50

/**
 * @typedef {import('./packets.js').SioPacket} SioPacket
 * @typedef {object} Step
 * @property {'connect' | 'emit' | 'join' | 'disconnect'} kind
 * @property {number} atMs when it was sent (epoch ms)
 * @property {number} gapMs time since the previous step (the first: since the session's handshake)
 * @property {string} nsp
 * @property {string} [event]
 * @property {unknown[]} [args]
 * @property {unknown} [auth] a CONNECT's payload
 * @property {Record<string, string>} [query] a Socket.IO v2 CONNECT's query
 * @property {boolean} [acked] the client asked for an ack (emitWithAck)
 * @property {unknown[] | null} [ack] the ack's arguments, when it came
 * @property {{ event: string, field: string | null } | null} [reply] an event that answered this emit (emitAndWait)
 * @property {string} [room] a join's room
 * @property {string} frame the packet as recorded
 * @typedef {object} Received
 * @property {string} nsp
 * @property {string} event
 * @property {number} count
 * @property {unknown[][]} samples the first arguments of each, up to SAMPLES
 * @typedef {object} SessionModel
 * @property {import('./sessions.js').EioSession} engine
 * @property {Step[]} steps
 * @property {Received[]} received
 * @property {string[]} namespaces in connect order
 * @property {import('./packets.js').Untranslated[]} untranslated
 * @typedef {object} RecordingModel
 * @property {string} creator
 * @property {SessionModel[]} sessions Socket.IO sessions, the one the scenario replays first
 * @property {import('./sessions.js').PlainSocket[]} plain plain WebSocket connections
 * @property {import('./har.js').HttpExchange | null} login a POST before the first session that set a cookie
 * @property {import('./har.js').HttpExchange[]} framesMissing WebSocket entries written without their frames
 * @property {{ url: string, frame: string, why: string }[]} unknown connections to an Engine.IO URL whose frames could not be read
 */

/**
 * @param {import('./har.js').HarRecording} har
 * @returns {RecordingModel}
 */
export function buildModel (har) {
  const { sessions, plain, framesMissing, unreadable, others } = groupConnections(har)
  const all = sessions.map(sessionModel)
  const models = all.filter((s) => s.steps.length > 0 || s.received.length > 0)
  const unknown = [
    ...unreadable.map((e) => ({ url: e.url.href, frame: firstFrame(e), why: 'no Engine.IO open packet' })),
    ...all.filter((s) => !models.includes(s) && s.untranslated.length > 0).map((s) => ({ url: s.engine.url.href, ...s.untranslated[0] }))
  ]
  // The first is the one that did the most (profile 1, its server and path are the run's); the others are profiles beside it or reported (profiles.js).
  models.sort((a, b) => b.steps.length - a.steps.length || a.engine.first.startMs - b.engine.first.startMs)
  const firstAt = models[0]?.engine.first.startMs ?? Infinity
  const login = others.filter((e) => e.method === 'POST' && e.startMs <= firstAt && e.status < 400 && setsCookie(e)).at(-1) ?? null
  return { creator: har.creator, sessions: models, plain, login, framesMissing, unknown }
}

/** @param {import('./har.js').HttpExchange} e */
function firstFrame (e) {
  const data = e.frames?.[0]?.data ?? e.responseBody ?? ''
  return typeof data === 'string' ? data.slice(0, 80) : `<${data.length} bytes>`
}

/** @param {import('./har.js').HttpExchange} e */
const setsCookie = (e) => e.responseCookies.length > 0 || e.responseHeaders.some((h) => h.name.toLowerCase() === 'set-cookie')

/**
 * @param {import('./sessions.js').EioSession} engine
 * @returns {SessionModel}
 */
function sessionModel (engine) {
  const { packets, untranslated } = decodeSession(engine)
  /** @type {Step[]} */
  const steps = []
  /** @type {Map<string, Received>} */
  const received = new Map()
  const namespaces = engine.eio === 3 ? ['/'] : []
  let lastMs = engine.first.startMs
  for (let k = 0; k < packets.length; k++) {
    const p = packets[k]
    if (p.dir === 'receive') {
      if (p.kind === 'event' && p.event !== undefined) receive(received, p)
      continue
    }
    const base = { atMs: p.atMs, gapMs: Math.max(0, p.atMs - lastMs), nsp: p.nsp, frame: p.frame }
    lastMs = p.atMs
    if (p.kind === 'connect') {
      if (!namespaces.includes(p.nsp)) namespaces.push(p.nsp)
      steps.push({ ...base, kind: 'connect', auth: p.data, ...(p.query ? { query: p.query } : {}) })
    } else if (p.kind === 'disconnect') {
      steps.push({ ...base, kind: 'disconnect' })
    } else if (p.kind === 'event') {
      steps.push(emitStep(base, p, packets, k))
    } else {
      const why = 'an ACK the client sent for an event of the server (replayed clients do not answer server acks)'
      untranslated.push({ atMs: p.atMs, dir: p.dir, frame: p.frame, why })
    }
  }
  return { engine, steps, received: [...received.values()], namespaces, untranslated }
}

/**
 * @param {Map<string, Received>} received
 * @param {SioPacket} p
 */
function receive (received, p) {
  const key = `${p.nsp}\n${p.event}`
  let r = received.get(key)
  if (!r) {
    r = { nsp: p.nsp, event: /** @type {string} */ (p.event), count: 0, samples: [] }
    received.set(key, r)
  }
  r.count++
  if (r.samples.length < SAMPLES) r.samples.push(p.args ?? [])
}

/**
 * An emit: with its ack when it asked for one, a join when its name says so, and the event that
 * answered it when one came soon after and shares a field value with it.
 * @param {{ atMs: number, gapMs: number, nsp: string, frame: string }} base
 * @param {SioPacket} p
 * @param {SioPacket[]} packets
 * @param {number} k its index
 * @returns {Step}
 */
function emitStep (base, p, packets, k) {
  const args = p.args ?? []
  const later = packets.slice(k + 1)
  const ackPacket = p.ackId === -1 ? null : later.find((q) => q.dir === 'receive' && q.kind === 'ack' && q.ackId === p.ackId && q.nsp === p.nsp)
  /** @type {Step} */
  const step = { ...base, kind: 'emit', event: p.event, args, acked: p.ackId !== -1, ack: ackPacket?.args ?? null, reply: null }
  const room = JOIN_EVENT.test(String(p.event)) ? roomOf(args[0]) : null
  if (room !== null && args.length === 1) return { ...step, kind: 'join', room }
  if (p.ackId === -1) step.reply = replyOf(p, later)
  return step
}

/**
 * A join's room: the argument itself, or its room/channel field.
 * @param {unknown} arg
 */
function roomOf (arg) {
  if (typeof arg === 'string' || typeof arg === 'number') return String(arg)
  if (arg && typeof arg === 'object') {
    const record = /** @type {Record<string, unknown>} */ (arg)
    for (const key of ['room', 'roomId', 'channel', 'name']) if (typeof record[key] === 'string') return /** @type {string} */ (record[key])
  }
  return null
}

/**
 * The event that answered an emit: the first received on its namespace before the client's next
 * send and within REPLY_WITHIN_MS, whose first argument has the emit's value of an id-like field (REPLY_KEY).
 * @param {SioPacket} p
 * @param {SioPacket[]} later
 * @returns {{ event: string, field: string | null } | null}
 */
function replyOf (p, later) {
  const sent = p.args?.[0]
  if (!sent || typeof sent !== 'object') return null
  for (const q of later) {
    if (q.dir === 'send' || q.atMs - p.atMs > REPLY_WITHIN_MS) return null
    if (q.kind !== 'event' || q.nsp !== p.nsp) continue
    const got = q.args?.[0]
    if (!got || typeof got !== 'object') continue
    for (const [key, value] of Object.entries(sent)) {
      if (!REPLY_KEY.test(key) || (typeof value !== 'string' && typeof value !== 'number')) continue
      if (/** @type {Record<string, unknown>} */ (got)[key] === value) return { event: /** @type {string} */ (q.event), field: key }
    }
  }
  return null
}
