/**
 * Runs a fleet plan: each step's commands in parallel (bounded), outputs gathered per host,
 * a host that failed a step skipped in the steps after it. Failures are results, not
 * exceptions: a fleet is expected to have a host down.
 */
import { spawn } from 'node:child_process'
import { closeSync, openSync } from 'node:fs'

/** Output kept per host and stream; beyond it the start is dropped and `truncated` set. */
export const MAX_OUTPUT_BYTES = 1 << 20
/** After an abort's SIGTERM, the group gets SIGKILL this much later. */
const KILL_AFTER_MS = 5000

/**
 * @typedef {import('./plan.js').Step} Step
 * @typedef {import('./plan.js').HostCommand} HostCommand
 * @typedef {object} HostResult
 * @property {string} step
 * @property {string} host the host's label
 * @property {number | null} code exit code; null when it did not exit normally
 * @property {string | null} signal
 * @property {string} stdout
 * @property {string} stderr
 * @property {boolean} truncated
 * @property {string | null} error why the command could not run (spawn failure, skipped, aborted)
 * @property {number} durationMs
 */

/**
 * True when the command ran and exited 0.
 * @param {HostResult} result
 */
export function succeeded (result) {
  return result.code === 0 && result.error === null
}

/**
 * Runs the steps in order; in each, every host's command in parallel, at most `parallel` at once.
 * @param {Step[]} steps
 * @param {{ parallel?: number, signal?: AbortSignal, onResult?: (result: HostResult) => void }} [options]
 * @returns {Promise<HostResult[]>} every result, in completion order within each step
 */
export async function runPlan (steps, { parallel = 32, signal, onResult } = {}) {
  /** @type {HostResult[]} */
  const results = []
  /** @type {Set<string>} */
  const failed = new Set()
  for (const step of steps) {
    /** @param {HostResult} result */
    const done = (result) => {
      if (!succeeded(result)) failed.add(result.host)
      results.push(result)
      onResult?.(result)
    }
    const queue = step.commands.filter((c) => {
      if (!failed.has(c.host.label)) return true
      done(skipped(step.name, c.host.label, 'skipped: an earlier step failed on this host'))
      return false
    })
    const worker = async () => {
      for (let next = queue.shift(); next; next = queue.shift()) done(await runCommand(step.name, next, signal))
    }
    await Promise.all(Array.from({ length: Math.min(parallel, queue.length) }, worker))
  }
  return results
}

/**
 * Runs one host's command, gathering its output.
 * @param {string} step
 * @param {HostCommand} command
 * @param {AbortSignal} [signal]
 * @returns {Promise<HostResult>}
 */
export function runCommand (step, { host, argv, stdinFile }, signal) {
  const startedAt = performance.now()
  if (signal?.aborted) return Promise.resolve(skipped(step, host.label, 'aborted'))
  return new Promise((resolve) => {
    // stdin closed: a command waiting for input would otherwise hang its host forever.
    // Its own process group: an abort stops ssh and anything it started, and a Ctrl-C in the
    // terminal reaches our handler (which aborts) rather than every ssh at once.
    // A file to send (a package tarball) is the command's stdin; otherwise stdin is closed.
    const stdin = stdinFile ? openSync(stdinFile, 'r') : 'ignore'
    const child = spawn(argv[0], argv.slice(1), { stdio: [stdin, 'pipe', 'pipe'], detached: true })
    if (typeof stdin === 'number') closeSync(stdin)
    const out = collector()
    const err = collector()
    child.stdout?.on('data', out.add)
    child.stderr?.on('data', err.add)
    /** @type {string | null} */
    let error = null
    /** @type {NodeJS.Timeout | undefined} */
    let killTimer
    const onAbort = () => {
      error = 'aborted'
      killGroup(child, 'SIGTERM')
      killTimer = setTimeout(() => killGroup(child, 'SIGKILL'), KILL_AFTER_MS).unref()
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    child.on('error', (e) => { error = `cannot run ${argv[0]}: ${e.message}` })
    child.on('close', (code, sig) => {
      signal?.removeEventListener('abort', onAbort)
      clearTimeout(killTimer)
      resolve({
        step,
        host: host.label,
        code,
        signal: sig,
        stdout: out.text(),
        stderr: err.text(),
        truncated: out.truncated || err.truncated,
        error,
        durationMs: Math.round(performance.now() - startedAt)
      })
    })
  })
}

/**
 * Signals a child's whole process group (it was spawned detached, as its group's leader).
 * @param {import('node:child_process').ChildProcess} child
 * @param {NodeJS.Signals} sig
 */
function killGroup (child, sig) {
  if (child.pid === undefined) return
  try {
    process.kill(-child.pid, sig)
  } catch {} // already gone
}

/**
 * Keeps the last MAX_OUTPUT_BYTES of a stream.
 */
function collector () {
  /** @type {Buffer[]} */
  let chunks = []
  let bytes = 0
  const state = {
    truncated: false,
    /** @param {Buffer} chunk */
    add: (chunk) => {
      chunks.push(chunk)
      bytes += chunk.length
      if (bytes > MAX_OUTPUT_BYTES * 2) {
        const kept = Buffer.concat(chunks).subarray(-MAX_OUTPUT_BYTES)
        chunks = [kept]
        bytes = kept.length
        state.truncated = true
      }
    },
    text: () => {
      const all = Buffer.concat(chunks)
      if (all.length > MAX_OUTPUT_BYTES) state.truncated = true
      return all.subarray(-MAX_OUTPUT_BYTES).toString('utf8')
    }
  }
  return state
}

/**
 * @param {string} step
 * @param {string} host
 * @param {string} why
 * @returns {HostResult}
 */
function skipped (step, host, why) {
  return { step, host, code: null, signal: null, stdout: '', stderr: '', truncated: false, error: why, durationMs: 0 }
}

/**
 * A result as lines prefixed by its host, pdsh style (`host: line`), for stdout and stderr.
 * @param {HostResult} result
 * @returns {{ stdout: string, stderr: string }}
 */
export function formatResult (result) {
  /** @param {string} text */
  const prefix = (text) => (text === '' ? '' : `${text.replace(/\n$/, '').split('\n').map((l) => `${result.host}: ${l}`).join('\n')}\n`)
  let stderr = prefix(result.stderr)
  if (result.truncated) stderr += `${result.host}: (output truncated to its last ${MAX_OUTPUT_BYTES} bytes)\n`
  if (!succeeded(result)) stderr += `${result.host}: ${result.step} failed: ${describeFailure(result)}\n`
  return { stdout: prefix(result.stdout), stderr }
}

/**
 * Why a host failed, in words.
 * @param {HostResult} result
 */
export function describeFailure (result) {
  if (result.error) return result.error
  if (result.signal) return `killed by ${result.signal}`
  // ssh itself exits 255 on a connection or authentication failure.
  if (result.code === 255) return 'exit 255 (ssh could not connect or authenticate, or the command exited 255)'
  return `exit ${result.code}`
}
