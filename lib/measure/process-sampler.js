/**
 * Samples this process: event-loop delay, event-loop utilisation, CPU and memory.
 * Used by the simulator for its own health and by the reference server and probe.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { HEALTH_SUMMARY_FROM } from '../schema/result-schema.js'

/**
 * @typedef {object} ProcessSample
 * @property {number} t wall-clock epoch ms when taken
 * @property {number} loopDelayP50Ms event-loop delay over the interval
 * @property {number} loopDelayP99Ms
 * @property {number} loopDelayMaxMs
 * @property {number} elu event-loop utilisation over the interval, 0..1
 * @property {number} cpuPct CPU over the interval, % of one core (user + system)
 * @property {number} rssBytes
 * @property {number} heapUsedBytes
 * @property {number} [pid] the process sampled (a simulator's result names it: merged --workers samples stay apart)
 */

const round2 = (/** @type {number} */ v) => Math.round(v * 100) / 100

/**
 * Starts sampling; each `sample()` covers the time since the previous one.
 * @param {{ resolutionMs?: number }} [options]
 */
export function createProcessSampler ({ resolutionMs = 10 } = {}) {
  const loop = monitorEventLoopDelay({ resolution: resolutionMs })
  loop.enable()
  let lastCpu = process.cpuUsage()
  let lastAt = performance.now()
  let lastElu = performance.eventLoopUtilization()
  /** The last memory figures read: a process out of file descriptors cannot read /proc to get new ones. */
  let lastMem = { rss: 0, heapUsed: 0 }

  return {
    /** @returns {ProcessSample} */
    sample () {
      const now = performance.now()
      const cpu = process.cpuUsage()
      const elu = performance.eventLoopUtilization()
      const elapsedUs = Math.max(1, (now - lastAt) * 1000)
      const cpuUs = (cpu.user - lastCpu.user) + (cpu.system - lastCpu.system)
      // process.memoryUsage() reads /proc/self/statm and throws EMFILE when every descriptor is
      // taken (a swarm at its limit): keep the last figures rather than kill the simulator.
      let mem = lastMem
      try {
        mem = lastMem = process.memoryUsage()
      } catch {}
      // monitorEventLoopDelay reports the delay including the resolution timer itself.
      const ms = (/** @type {number} */ ns) => round2(Math.max(0, ns / 1e6 - resolutionMs))
      const sample = {
        t: Math.round(performance.timeOrigin + now),
        loopDelayP50Ms: loop.count ? ms(loop.percentile(50)) : 0,
        loopDelayP99Ms: loop.count ? ms(loop.percentile(99)) : 0,
        loopDelayMaxMs: loop.count ? ms(loop.max) : 0,
        elu: round2(performance.eventLoopUtilization(elu, lastElu).utilization),
        cpuPct: round2(cpuUs / elapsedUs * 100),
        rssBytes: mem.rss,
        heapUsedBytes: mem.heapUsed
      }
      loop.reset()
      lastCpu = cpu
      lastAt = now
      lastElu = elu
      return sample
    },
    stop () {
      loop.disable()
    }
  }
}

/** Event-loop utilisation at or above which a process counts as saturated. */
export const SATURATED_ELU = 0.9
/** Event-loop delay p99 at or above which a process counts as saturated. */
export const SATURATED_LOOP_DELAY_MS = 50

/**
 * Was the process saturated during this sample? Then its measurements are suspect.
 * @param {{ elu: number, loopDelayP99Ms: number }} sample
 */
export function isSaturated (sample) {
  return sample.elu >= SATURATED_ELU || sample.loopDelayP99Ms >= SATURATED_LOOP_DELAY_MS
}

/**
 * The share of a wall interval a process was busy on CPU, 0..1, from its CPU time and the wall
 * time over the same interval (read together). A process's CPU counts its helper threads (GC,
 * compilers, libuv) beside its main one, so it can pass the wall time; a main thread busy all
 * along is 100 % busy, never more, so the share stops at 1. Null without a wall interval.
 * @param {number} cpuMs
 * @param {number} wallMs
 */
export function busyShare (cpuMs, wallMs) {
  return wallMs > 0 && Number.isFinite(cpuMs) ? Math.min(1, Math.max(0, cpuMs / wallMs)) : null
}

/**
 * A process's health summary from its one-second samples: each field of HEALTH_SUMMARY_FROM
 * (lib/schema/result-schema.js, where the fields are listed once) the largest over the samples.
 * @param {ProcessSample[]} samples
 * @returns {import('../schema/result-schema.js').HealthSummary}
 */
export function summarizeHealth (samples) {
  /** @type {Record<string, number>} */
  const out = {}
  for (const [field, from] of Object.entries(HEALTH_SUMMARY_FROM)) {
    out[field] = from === 'saturated' ? samples.filter(isSaturated).length : samples.reduce((m, s) => Math.max(m, s[from]), 0)
  }
  return /** @type {import('../schema/result-schema.js').HealthSummary} */ (/** @type {unknown} */ (out))
}
