/**
 * Child processes of ioswarm (the reference server of a run, simulator children): forked
 * with an IPC channel, stderr kept (its tail, for error messages), each stopped by its pid
 * with SIGTERM and then SIGKILL after a grace period. Each runs in its own process group, so
 * a Ctrl-C on the terminal reaches only the parent, which stops every child once (a child
 * given two signals exits without flushing); children still running when the parent exits
 * are sent SIGTERM.
 */
import { fork } from 'node:child_process'
import { once } from 'node:events'

/**
 * @typedef {object} Child
 * @property {import('node:child_process').ChildProcess} process
 * @property {number} pid
 * @property {() => string} stderr the last lines it wrote
 * @property {Promise<{ code: number | null, signal: string | null }>} exited
 * @property {() => boolean} running not exited yet
 * @property {(graceMs?: number) => Promise<void>} stop SIGTERM, then SIGKILL after graceMs
 */

/** Children still running, stopped if this process exits first. */
const live = new Set()
const stopAll = () => { for (const child of live) child.kill('SIGTERM') }

/**
 * @param {string} modulePath the script to run
 * @param {string[]} args its arguments
 * @param {{ env?: Record<string, string>, onStderr?: (text: string) => void }} [options] env: added to this process's environment
 * @returns {Child}
 */
export function forkChild (modulePath, args, { env = {}, onStderr } = {}) {
  const child = fork(modulePath, args, {
    stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
    detached: true,
    env: { ...process.env, ...env },
    execArgv: inheritedExecArgv()
  })
  let tail = ''
  child.stderr?.setEncoding('utf8').on('data', (/** @type {string} */ data) => {
    tail = (tail + data).slice(-4000)
    onStderr?.(data)
  })
  live.add(child)
  if (live.size === 1) process.on('exit', stopAll)
  const exited = Promise.all([once(child, 'exit'), channelClosed(child)]).then(([[code, signal]]) => {
    live.delete(child)
    if (live.size === 0) process.off('exit', stopAll)
    return { code, signal }
  })
  const running = () => child.exitCode === null && child.signalCode === null
  return {
    process: child,
    pid: /** @type {number} */ (child.pid),
    stderr: () => tail,
    exited,
    running,
    async stop (graceMs = 20000) {
      if (!running()) return
      child.kill('SIGTERM')
      // A stopped process (SIGSTOP, Ctrl-Z) keeps the SIGTERM pending until it continues.
      child.kill('SIGCONT')
      const timer = setTimeout(() => child.kill('SIGKILL'), graceMs)
      await exited
      clearTimeout(timer)
    }
  }
}

/**
 * Resolves once the child's IPC channel is closed and every message it sent has been emitted.
 * A child's 'exit' can come before its last messages are read from the channel (a large final
 * result, many children ending at once on a loaded host: results were lost that way), while
 * 'disconnect' is emitted only after the channel's last bytes were read and their messages
 * emitted. Bounded: a channel held open by a grandchild that inherited it must not hang the parent.
 * @param {import('node:child_process').ChildProcess} child
 * @param {number} [afterExitMs] how long to wait for the channel once the process has exited
 * @returns {Promise<void>}
 */
function channelClosed (child, afterExitMs = 10000) {
  if (!child.connected) return Promise.resolve()
  return new Promise((resolve) => {
    /** @type {NodeJS.Timeout | undefined} */
    let timer
    const done = () => {
      clearTimeout(timer)
      resolve()
    }
    child.once('disconnect', done)
    child.once('exit', () => {
      if (!child.connected) return done()
      timer = setTimeout(() => {
        child.off('disconnect', done)
        done()
      }, afterExitMs)
    })
  })
}

/**
 * This process's Node flags for a child, less those that only make sense for this process's
 * own entry (`node --input-type=module -e …` would make every child refuse its script).
 * @returns {string[]}
 */
function inheritedExecArgv () {
  /** @type {string[]} */
  const out = []
  const argv = process.execArgv
  for (let k = 0; k < argv.length; k++) {
    const a = argv[k]
    if (a === '-e' || a === '--eval' || a === '-p' || a === '--print') k++ // and its code
    else if (!a.startsWith('--input-type') && !a.startsWith('--eval=') && !a.startsWith('--print=')) out.push(a)
  }
  return out
}
