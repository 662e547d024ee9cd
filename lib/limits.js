/**
 * This machine's limits that stop a load test before the server does (open files per
 * process, ephemeral ports per destination, memory), read from /proc, and the one way a
 * need is judged against them: over the limit is an error naming it and how to raise it,
 * over 80 % a warning. Used by the simulator's preflight and the runner's.
 */
import { readFileSync } from 'node:fs'
import os from 'node:os'

/** Above this share of a limit, the run goes on with a warning. */
export const WARN_RATIO = 0.8

/**
 * @typedef {object} Limits
 * @property {number} fdSoft open files soft limit (what the process gets)
 * @property {number} fdHard open files hard limit (what ulimit -n can raise it to)
 * @property {number} ports ephemeral ports per (source address, destination address:port)
 * @property {string} portRange e.g. '32768 60999'
 * @property {number} freeBytes memory available now
 */

/**
 * The machine's limits, read from /proc (Linux); unknown values are Infinity.
 * @returns {Limits}
 */
export function readLimits () {
  const [fdSoft, fdHard] = readOpenFiles()
  let ports = Infinity
  let portRange = 'unknown'
  try {
    const [low, high] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/).map(Number)
    ports = high - low + 1
    portRange = `${low} ${high}`
  } catch {}
  return { fdSoft, fdHard, ports, portRange, freeBytes: os.freemem() }
}

/** @returns {[number, number]} */
function readOpenFiles () {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8').split('\n').find((l) => l.startsWith('Max open files'))
    const [soft, hard] = (line ?? '').slice('Max open files'.length).trim().split(/\s+/)
    const num = (/** @type {string | undefined} */ v) => (v === undefined || v === 'unlimited' ? Infinity : Number(v))
    return [num(soft), num(hard)]
  } catch {
    return [Infinity, Infinity]
  }
}

/**
 * Each need against its limit: over it is an error (its text and how to raise it), over
 * WARN_RATIO of it a warning. Shared with the runner's preflight, which adds up processes.
 * @param {{ text: string, need: number, limit: number, how: string }[]} checks
 * @returns {{ errors: string[], warnings: string[] }}
 */
export function judgeLimits (checks) {
  const errors = []
  const warnings = []
  for (const c of checks) {
    if (c.need > c.limit) errors.push(`${c.text}; ${c.how}`)
    else if (c.need > c.limit * WARN_RATIO) warnings.push(`${c.text} (over ${WARN_RATIO * 100} %)`)
  }
  return { errors, warnings }
}

/** @param {number} bytes */
export function formatMiB (bytes) {
  return `${Math.round(bytes / 1048576)} MiB`
}
