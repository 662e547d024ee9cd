/**
 * One message of a recorder, from its first receipt to its report: who is expected to get it
 * (the clients connected, or a room's, when it was sent; never its sender), the record it fills
 * as copies come, and the report it closes into (missing, floor, histograms encoded).
 */
import { wallMs } from '../../lib/measure/clock.js'
import { createHistogram, encode, summarize } from '../../lib/measure/histogram.js'
import { floorOf } from './recorder-cpu.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').MessageReport} MessageReport
 * @typedef {OpenMessageOwn & import('./recorder-cpu.js').FloorMarks} OpenMessage its floor marks (firstMono, cpuFirstMs, cpuEndMs, cpuEndMono, drained) and:
 * @typedef {object} OpenMessageOwn
 * @property {MessageReport} report
 * @property {number} lastMono latest receipt
 * @property {Uint32Array} expectedBits clients connected (and in its room, for a room message) at the first receipt, less
 *   those that connected after its send time (when it has one)
 * @property {Set<number> | null} members for a room message: the clients meant to be in the room (the rest are misdelivered copies)
 * @property {number} sender the client of this process that emitted it (a relayed line), else -1: its own copy is not expected, and an echo if it comes
 * @property {Uint32Array} receivedBits
 * @property {number} receivedExpected
 * @property {import('../../lib/measure/histogram.js').Histogram} relative
 * @property {import('../../lib/measure/histogram.js').Histogram | null} absolute
 * @property {number} negative absolute latencies below zero (clock skew larger than the latency)
 * @property {number} window its time window (--window: simulator/recording/window-recorder.js), else -1
 */

/**
 * Who a message is for at its first receipt: the connected clients, or for a message to a room
 * (`target`) the room's; of those, only the clients already connected when it was sent
 * (`sentMs`, when known: a client that connected between its send and its first receipt here
 * was never owed it, and a copy it gets is received, not expected); its sender (one of this
 * process's clients, or -1) never.
 * @param {Uint32Array} connected bit i = client i is connected
 * @param {import('./recorder-rooms.js').RoomTarget | null} target
 * @param {number} sender
 * @param {ReturnType<typeof import('./recorder-connects.js').createConnectBook> | null} [connects] when each client connected
 * @param {number} [sentMs] its send time on this process's wall clock; NaN: unknown (everyone connected now)
 * @returns {{ expectedBits: Uint32Array, expected: number }}
 */
export function expectedOf (connected, target, sender, connects = null, sentMs = NaN) {
  let expectedBits
  let expected = 0
  if (target !== null) {
    // Expected: the room's joined clients that are connected now (a room unknown here: none).
    expectedBits = target.expectedBits
    expected = target.expected
  } else {
    expectedBits = connected.slice()
    for (let w = 0; w < expectedBits.length; w++) expected += popcount(expectedBits[w])
  }
  if (connects !== null && !Number.isNaN(sentMs)) expected -= connects.clearAfter(expectedBits, sentMs)
  // A server may send a line back to its sender (io.to(room)) or not (socket.to(room)): either
  // is right, and that copy is not counted as received.
  if (sender !== -1 && expectedBits[sender >>> 5] & (1 << (sender & 31))) {
    expectedBits[sender >>> 5] &= ~(1 << (sender & 31))
    expected--
  }
  return { expectedBits, expected }
}

/**
 * A message at its first receipt.
 * @param {object} spec
 * @param {string} spec.key
 * @param {string} spec.event
 * @param {string} spec.namespace
 * @param {ReturnType<typeof import('./recorder.js').identify>} spec.identity its id, round, send time, room
 * @param {boolean} spec.targeted it is for its room's clients only
 * @param {{ expectedBits: Uint32Array, expected: number }} spec.expecting (expectedOf)
 * @param {Set<number> | null} spec.members the room's clients meant to be in it; null: no room
 * @param {number} spec.sender
 * @param {number} spec.now monotonic ms
 * @param {number} spec.cpuMs process CPU now
 * @param {number} spec.window its time window, or -1
 * @returns {OpenMessage}
 */
export function openMessage ({ key, event, namespace, identity, targeted, expecting, members, sender, now, cpuMs, window }) {
  const { id, batch, round, seq, sentAt, room } = identity
  return {
    report: {
      key,
      id,
      ...(batch === undefined ? {} : { batch }),
      event,
      namespace,
      room: targeted ? room : null,
      round,
      seq,
      sentAt,
      firstAt: wallMs(),
      received: 0,
      expected: expecting.expected,
      missing: 0,
      duplicates: 0,
      misdelivered: 0,
      echo: 0,
      late: 0,
      relative: { ...summarize(createHistogram()), histogram: '' },
      absolute: null,
      floor: { cpuMs: 0, spreadMs: 0 }
    },
    firstMono: now,
    lastMono: now,
    expectedBits: expecting.expectedBits,
    members,
    sender,
    receivedBits: new Uint32Array(expecting.expectedBits.length),
    receivedExpected: 0,
    relative: createHistogram(),
    absolute: sentAt === null ? null : createHistogram(),
    negative: 0,
    cpuFirstMs: cpuMs,
    cpuEndMs: cpuMs,
    cpuEndMono: now,
    drained: false,
    window
  }
}

/**
 * The report a message closes into: missing counted, its floor, its histograms summed up and encoded.
 * @param {OpenMessage} message
 * @returns {MessageReport}
 */
export function closedReport (message) {
  const { report } = message
  report.missing = report.expected - message.receivedExpected
  report.floor = floorOf(message)
  report.relative = { ...summarize(message.relative), histogram: encode(message.relative) }
  if (message.absolute) {
    report.absolute = { ...summarize(message.absolute), histogram: encode(message.absolute), negative: message.negative }
  }
  return report
}

/**
 * Calls `onMissing` for each client that expected a message and never got it.
 * @param {OpenMessage} message
 * @param {(i: number) => void} onMissing
 */
export function missingByClient (message, onMissing) {
  const { expectedBits, receivedBits } = message
  for (let w = 0; w < expectedBits.length; w++) {
    let bits = expectedBits[w] & ~receivedBits[w]
    while (bits !== 0) {
      const low = bits & -bits
      onMissing(w * 32 + 31 - Math.clz32(low))
      bits ^= low
    }
  }
}

/**
 * Number of set bits in a 32-bit word.
 * @param {number} v
 */
function popcount (v) {
  v -= (v >>> 1) & 0x55555555
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333)
  return (((v + (v >>> 4)) & 0x0f0f0f0f) * 0x01010101) >>> 24
}
