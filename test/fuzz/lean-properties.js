/**
 * Properties of the lean engine's decoding, shared by the bounded CI test
 * (test/fuzz/lean-codec.test.js) and the long run (bench/fuzz.js): random and mutated
 * Engine.IO / Socket.IO packets, truncated polling payloads, huge lengths, bad JSON and
 * wrong binary attachment counts. Each property holds when nothing throws (except the one
 * documented RangeError of fillPlaceholders) and every result is well-formed; the inbound
 * properties drive a real LeanSession and check that a bad frame closes the client with
 * 'parse error' instead of escaping.
 */
import fc from 'fast-check'
import { EIO_RECORD_SEPARATOR } from '../../lib/protocol.js'
import { Client, STATE, WIRE } from '../../simulator/engines/lean/client.js'
import { connectErrorMessage, decodeEvent, fillPlaceholders, MAX_ATTACHMENTS, parseOpen, parseSioHeader } from '../../simulator/engines/lean/codec.js'
import { resolveLeanConfig } from '../../simulator/engines/lean/config.js'
import { onPollBody, onSocketMessage } from '../../simulator/engines/lean/inbound.js'
import { readFrameHeader } from '../../simulator/wire/rfc6455.js'
import { LeanSession } from '../../simulator/engines/lean/session.js'

const EVENT = 'broadcast'

/** A JSON text that socket.io could have sent as an EVENT payload. */
const eventJson = fc.tuple(fc.oneof(fc.constant(EVENT), fc.string({ maxLength: 8 }), fc.integer()), fc.array(fc.jsonValue({ maxDepth: 3 }), { maxLength: 4 }))
  .map(([name, args]) => JSON.stringify([name, ...args]))
/** An event's JSON cut anywhere: what a partial read would hand the decoder. */
const truncatedEventJson = eventJson.chain((j) => fc.nat(j.length).map((n) => j.slice(0, n)))

/** A field of an open packet: any JSON, with objects that break Number() and String(). */
const openField = fc.oneof(fc.jsonValue({ maxDepth: 2 }),
  fc.constantFrom({ toString: null }, { valueOf: null, toString: null }, { valueOf: 'x' }, '25000', '1e400', -1, 0))

/** A placeholder, well-formed or not. */
const placeholder = fc.record({
  _placeholder: fc.oneof(fc.constant(true), fc.jsonValue({ maxDepth: 0 })),
  num: fc.oneof(fc.integer({ min: -2, max: 12 }), fc.double(), fc.string({ maxLength: 3 }))
})

/** A Socket.IO packet inside an Engine.IO message, plausible enough to pass the first checks. */
const sioPacket = fc.record({
  type: fc.integer({ min: 0, max: 9 }),
  attachments: fc.oneof(fc.constant(''), fc.integer({ min: 0, max: 12 }).map((n) => `${n}-`), fc.stringMatching(/^[0-9]{1,20}-$/)),
  nsp: fc.oneof(fc.constant(''), fc.constant('/,'), fc.constant('/admin,'), fc.string({ maxLength: 6 })),
  ackId: fc.oneof(fc.constant(''), fc.stringMatching(/^[0-9]{1,20}$/)),
  data: fc.oneof(eventJson, fc.json({ maxDepth: 3 }), fc.string({ maxLength: 20 }),
    fc.array(placeholder, { maxLength: 3 }).map((p) => JSON.stringify([EVENT, ...p])))
}).map((p) => `4${p.type}${p.attachments}${p.nsp}${p.ackId}${p.data}`)

/** Well-formed events, text and binary (whose attachments may or may not follow). */
const wellFormed = fc.oneof(
  eventJson.map((json) => `42${json}`),
  fc.integer({ min: 1, max: 3 }).map((n) => `45${n}-${JSON.stringify([EVENT, ...Array.from({ length: n }, (_, num) => ({ _placeholder: true, num }))])}`)
)

/** An Engine.IO packet: mostly plausible, some random, some cut or corrupted. */
const eioPacket = fc.oneof(
  { weight: 3, arbitrary: wellFormed },
  { weight: 4, arbitrary: sioPacket },
  {
    weight: 1,
    arbitrary: fc.constantFrom('2', '3', '6', '1', '0', '0{"sid":"x","pingInterval":1,"pingTimeout":1}', '40{"sid":"n"}', '41', '44{"message":"no"}', '44"v4"')
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 30 }) },
  { weight: 2, arbitrary: fc.tuple(sioPacket, fc.nat(), fc.string({ maxLength: 3 })).map(([text, at, junk]) => mutate(text, at, junk)) }
)

/**
 * Cuts, corrupts or extends a packet at a position.
 * @param {string} text
 * @param {number} at
 * @param {string} junk
 */
function mutate (text, at, junk) {
  const k = text.length === 0 ? 0 : at % text.length
  switch (at % 3) {
    case 0: return text.slice(0, k) // truncated
    case 1: return text.slice(0, k) + junk + text.slice(k + 1) // a character replaced
    default: return text + junk // trailing garbage
  }
}

/** A polling payload: packets joined by the record separator, binary ones as b<base64>, maybe cut short. */
const pollBody = fc.tuple(
  fc.array(fc.oneof(eioPacket, fc.uint8Array({ maxLength: 16 }).map((b) => `b${Buffer.from(b).toString('base64')}`), fc.constant('b!!')),
    { minLength: 1, maxLength: 6 }),
  fc.option(fc.nat())
).map(([packets, cut]) => {
  const body = packets.join(EIO_RECORD_SEPARATOR)
  return cut === null ? body : body.slice(0, cut % (body.length + 1))
})

/** WebSocket messages: text packets and binary attachments in any order and number. */
const wsMessages = fc.array(fc.oneof(
  { weight: 3, arbitrary: eioPacket.map((text) => ({ isBinary: false, data: Buffer.from(text) })) },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 16 }).map((b) => ({ isBinary: true, data: Buffer.from(b) })) }
), { minLength: 1, maxLength: 8 })

/**
 * A real lean session (no I/O: the client's wire is NONE, so answers such as pongs go
 * nowhere) and what it reported to the swarm.
 * @param {boolean} filtered listen to EVENT only (exercises the peek path) instead of '*'
 */
export function createHarness (filtered) {
  /** @type {{ kind: string, reason?: string, event?: string, args?: unknown[] }[]} */
  const seen = []
  /** @type {import('../../simulator/engines/types.js').SwarmEvents} */
  const events = {
    attempt: () => {},
    connected: () => seen.push({ kind: 'connected' }),
    upgraded: () => {},
    message: (i, event, args) => seen.push({ kind: 'message', event, args }),
    unmeasured: () => {},
    disconnected: (i, reason) => seen.push({ kind: 'disconnected', reason }),
    connectError: (i, reason) => seen.push({ kind: 'connectError', reason }),
    reconnected: () => {}
  }
  const config = resolveLeanConfig({
    url: 'http://127.0.0.1:1', path: '/socket.io/', namespace: '/', keepAlive: true, reconnect: false, events: filtered ? [EVENT] : ['*'], heartbeatTickMs: 1000
  })
  const session = new LeanSession(config, events)
  return {
    session,
    seen,
    /** A connected client with nothing under it. */
    client () {
      seen.length = 0
      const c = new Client(0, 'websocket')
      session.clients[0] = c
      c.state = STATE.CONNECTED
      c.up = 1 // its namespace is connected
      c.wire = WIRE.NONE
      return c
    },
    close () { session.sweeper.stop() }
  }
}

/**
 * What must hold after a client took any input: events well-formed, at most one end, and a
 * client that reported a parse error is closed.
 * @param {ReturnType<typeof createHarness>} h
 * @param {Client} c
 */
function checkOutcome (h, c) {
  const ends = h.seen.filter((e) => e.kind === 'disconnected' || e.kind === 'connectError')
  if (ends.length > 1) throw new Error(`ended ${ends.length} times: ${JSON.stringify(ends)}`)
  for (const e of h.seen) {
    if (e.kind === 'message' && (typeof e.event !== 'string' || !Array.isArray(e.args))) throw new Error(`malformed event ${JSON.stringify(e)}`)
    if (ends.length === 0 && e.kind === 'message' && c.state !== STATE.CONNECTED) {
      throw new Error('a message reached the swarm from a client that is not connected')
    }
  }
  if (ends.some((e) => e.reason === 'parse error') && c.state !== STATE.IDLE) throw new Error('a parse error left the client open')
  if (ends.length === 0 && c.state !== STATE.CONNECTED) throw new Error(`client left in state ${c.state} without an end event`)
}

/**
 * Every property, by name. `h` is a harness from createHarness (shared across runs).
 * @param {{ all: ReturnType<typeof createHarness>, filtered: ReturnType<typeof createHarness> }} h
 * @returns {Record<string, fc.IProperty<any>>}
 */
export function leanProperties (h) {
  return {
    parseOpen: fc.property(fc.oneof(fc.string(), fc.json().map((j) => `0${j}`),
      fc.record({ sid: openField, pingInterval: openField, pingTimeout: openField, upgrades: openField }).map((o) => `0${JSON.stringify(o)}`)), (text) => {
      const open = parseOpen(text)
      if (open === null) return true
      return typeof open.sid === 'string' && open.sid !== '' && open.pingIntervalMs > 0 && open.pingTimeoutMs > 0 &&
        open.upgrades.every((u) => typeof u === 'string')
    }),
    parseSioHeader: fc.property(eioPacket, (text) => {
      const header = parseSioHeader(text)
      if (header === null) return true
      const binary = header.type === 5 || header.type === 6
      return header.type >= 0 && header.type <= 6 &&
        (binary ? header.attachments >= 1 && header.attachments <= MAX_ATTACHMENTS : header.attachments === 0) &&
        typeof header.nsp === 'string' && (header.ackId === -1 || (Number.isSafeInteger(header.ackId) && header.ackId >= 0)) &&
        header.dataStart >= 2 && header.dataStart <= text.length
    }),
    decodeEvent: fc.property(fc.oneof(eventJson, fc.string(), truncatedEventJson), fc.boolean(), (json, filtered) => {
      const decoded = decodeEvent(`42${json}`, 2, filtered ? new Set([EVENT]) : null)
      if (decoded === null) return true
      // Not measured: counted by its name only, never parsed.
      if (decoded.args === null) return filtered && typeof decoded.event === 'string' && decoded.event !== EVENT
      return typeof decoded.event === 'string' && Array.isArray(decoded.args) && (!filtered || decoded.event === EVENT)
    }),
    fillPlaceholders: fc.property(fc.array(fc.oneof(placeholder, fc.jsonValue({ maxDepth: 2 })), { maxLength: 4 }), fc.nat(MAX_ATTACHMENTS), (args, count) => {
      const buffers = Array.from({ length: count }, (_, k) => Buffer.from([k]))
      try {
        fillPlaceholders(args, buffers)
      } catch (error) {
        if (!(error instanceof RangeError)) throw error
      }
      return true
    }),
    connectErrorMessage: fc.property(fc.oneof(fc.string(), fc.json()), (json) => {
      const message = connectErrorMessage(json)
      return message === null || typeof message === 'string'
    }),
    readFrameHeader: fc.property(fc.uint8Array({ maxLength: 14 }), fc.nat(3), (bytes, pos) => {
      const buf = Buffer.from(bytes)
      const header = readFrameHeader(buf, Math.min(pos, buf.length), buf.length)
      if (header === null || typeof header === 'string') return true
      return [2, 4, 10].includes(header.headerBytes) && header.headerBytes <= buf.length - Math.min(pos, buf.length) &&
        Number.isSafeInteger(header.length) && header.length >= 0 && header.opcode >= 0 && header.opcode <= 10
    }),
    pollBody: fc.property(pollBody, fc.boolean(), (body, filtered) => {
      const harness = filtered ? h.filtered : h.all
      const c = harness.client()
      onPollBody(harness.session, c, body)
      checkOutcome(harness, c)
      return true
    }),
    wsMessages: fc.property(wsMessages, fc.boolean(), (messages, filtered) => {
      const harness = filtered ? h.filtered : h.all
      const c = harness.client()
      const ws = { session: harness.session, client: c, gen: c.gen, shut () {} }
      c.ws = /** @type {any} */ (ws)
      for (const m of messages) onSocketMessage(/** @type {any} */ (ws), m.data, 0, m.data.length, m.isBinary)
      checkOutcome(harness, c)
      return true
    })
  }
}
