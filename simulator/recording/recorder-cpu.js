/**
 * The simulator's own floor per message: the CPU time this process used from a message's
 * first receipt until every expected client had it (or, if some never did, until its last
 * receipt), next to the wall time of the same interval. One reader per recorder: receipts of
 * a message still draining reuse a read at most CPU_READ_MS old; the first receipt and the
 * one that completes the message read exactly.
 */
import { processCpuMs } from '../../lib/measure/clock.js'

/**
 * A CPU read costs about 1 µs (a getrusage call; bench/recorder.js puts a whole receipt at
 * ~0.5 µs), so this is how old a read a receipt may reuse. A message that is never completed
 * has its floor end within this much of its last receipt.
 */
export const CPU_READ_MS = 1

/**
 * What a message keeps of its floor.
 * @typedef {object} FloorMarks
 * @property {number} firstMono its first receipt (monotonic ms)
 * @property {number} cpuFirstMs process CPU at the first receipt
 * @property {number} cpuEndMs process CPU when every expected client had it, else at about the latest receipt
 * @property {number} cpuEndMono when cpuEndMs was read
 * @property {boolean} drained every expected client has it
 */

/**
 * @param {() => number} [cpuMs] the process's CPU time so far, ms (tests give their own)
 */
export function createCpuReader (cpuMs = processCpuMs) {
  let readMs = 0
  let readMono = -Infinity
  return {
    /**
     * A message's first receipt: an exact read, its floor's start.
     * @param {number} now monotonic ms of the receipt
     * @returns {number} the process CPU now
     */
    first (now) {
      readMs = cpuMs()
      readMono = now
      return readMs
    },

    /**
     * A counted receipt of a message still draining: its floor's end moves to now (a read at
     * most CPU_READ_MS old; exact when this receipt drains it).
     * @param {FloorMarks} marks
     * @param {number} now
     * @param {boolean} drainsIt every expected client has it with this receipt
     */
    receipt (marks, now, drainsIt) {
      if (drainsIt || now - readMono >= CPU_READ_MS) {
        readMs = cpuMs()
        readMono = now
      }
      if (drainsIt) marks.drained = true
      marks.cpuEndMs = readMs
      marks.cpuEndMono = readMono
    }
  }
}

/**
 * A closed message's floor for its report. Each CPU read is paired with the receipt time read
 * just before it on this thread. cpuMs counts the process's helper threads too (GC, compilers),
 * so on a short drain it may pass spreadMs: its share of the spread is read with busyShare
 * (lib/measure/process-sampler.js), at most 100 %.
 * @param {FloorMarks} marks
 * @returns {{ cpuMs: number, spreadMs: number }}
 */
export function floorOf (marks) {
  return { cpuMs: round3(marks.cpuEndMs - marks.cpuFirstMs), spreadMs: round3(marks.cpuEndMono - marks.firstMono) }
}

/** @param {number} v */
const round3 = (v) => Math.round(v * 1000) / 1000
