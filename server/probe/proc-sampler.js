/**
 * Samples any Linux process from outside, through /proc, for servers not written in Node:
 * CPU from the utime + stime deltas of /proc/PID/stat (in clock ticks), RSS from
 * /proc/PID/status, and connections = the process's TCP sockets in ESTABLISHED state
 * (its /proc/PID/fd socket inodes matched in /proc/PID/net/tcp and tcp6). What cannot be
 * seen from outside (event loop, heap, transport of each connection) is null, not 0.
 *
 * proc(5): https://man7.org/linux/man-pages/man5/proc.5.html
 */
import { perTransport } from '../../lib/transports.js'
import { execFileSync } from 'node:child_process'
import { readFile, readdir, readlink } from 'node:fs/promises'
import { wallMs } from '../../lib/measure/clock.js'
import { CODES, IoswarmError } from '../../lib/errors.js'

const TCP_ESTABLISHED = '01'

/**
 * @typedef {object} ProcSample a ServerSample whose unknowable fields are null
 * @property {number} t
 * @property {number} cpuPct % of one core over the interval
 * @property {number} rssBytes
 * @property {number} connected established TCP connections of the process
 * @property {{ websocket: null, polling: null }} byTransport not visible from outside
 * @property {null} loopDelayP50Ms
 * @property {null} loopDelayP99Ms
 * @property {null} loopDelayMaxMs
 * @property {null} elu
 * @property {null} heapUsedBytes
 * @property {number} threads
 * @property {'proc'} source
 * @property {number} pid
 */

/** Clock ticks per second (USER_HZ), the unit of utime and stime; 100 on every common kernel. */
export function clockTicksPerSecond () {
  try {
    const ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8', timeout: 2000 }).trim())
    return Number.isInteger(ticks) && ticks > 0 ? ticks : 100
  } catch {
    return 100
  }
}

/**
 * The fields of /proc/PID/stat we use. The command name (field 2) may hold spaces and
 * parentheses, so fields are counted from the last ')'.
 * @param {string} text
 */
export function parseStat (text) {
  const fields = text.slice(text.lastIndexOf(')') + 2).trim().split(/\s+/)
  // fields[0] is field 3 (state): utime = field 14, stime = 15, num_threads = 20, starttime = 22.
  return { state: fields[0], utimeTicks: Number(fields[11]), stimeTicks: Number(fields[12]), threads: Number(fields[17]), startTicks: fields[19] }
}

/**
 * Socket inodes of the ESTABLISHED connections in a /proc/net/tcp or tcp6 table.
 * @param {string} text
 * @returns {string[]}
 */
export function establishedInodes (text) {
  const inodes = []
  for (const line of text.split('\n').slice(1)) {
    const cols = line.trim().split(/\s+/)
    if (cols.length > 9 && cols[3] === TCP_ESTABLISHED) inodes.push(cols[9])
  }
  return inodes
}

/**
 * Starts sampling process `pid`; each sample covers the time since the previous one.
 * Rejects at once when the process is not there or its /proc cannot be read.
 * @param {number} pid
 * @param {{ clockTicks?: number }} [options]
 */
export async function createProcSampler (pid, { clockTicks = clockTicksPerSecond() } = {}) {
  if (process.platform !== 'linux') throw new IoswarmError(CODES.INVALID_OPTION, `--pid needs Linux /proc; this is ${process.platform}`)
  const first = await readProcess(pid).catch((error) => { throw unreadable(pid, error) })
  let last = { ...first.stat, atMs: wallMs() }
  return {
    /**
     * The next sample, or null once the process has exited (or its pid was reused).
     * @returns {Promise<ProcSample | null>}
     */
    async sample () {
      let now
      try {
        now = await readProcess(pid)
      } catch (error) {
        if (/** @type {NodeJS.ErrnoException} */ (error).code === 'ENOENT' || /** @type {NodeJS.ErrnoException} */ (error).code === 'ESRCH') return null
        throw unreadable(pid, error)
      }
      // Exited but not yet reaped (zombie, dead), or the pid now belongs to another process.
      if (now.stat.state === 'Z' || now.stat.state === 'X' || now.stat.startTicks !== first.stat.startTicks) return null
      const atMs = wallMs()
      const cpuTicks = (now.stat.utimeTicks + now.stat.stimeTicks) - (last.utimeTicks + last.stimeTicks)
      const elapsedS = Math.max(0.001, (atMs - last.atMs) / 1000)
      last = { ...now.stat, atMs }
      return {
        t: Math.round(atMs),
        cpuPct: Math.round(cpuTicks / clockTicks / elapsedS * 10000) / 100,
        rssBytes: now.rssBytes,
        connected: now.connected,
        byTransport: perTransport(() => null),
        loopDelayP50Ms: null,
        loopDelayP99Ms: null,
        loopDelayMaxMs: null,
        elu: null,
        heapUsedBytes: null,
        threads: now.stat.threads,
        source: 'proc',
        pid
      }
    }
  }
}

/** @param {number} pid */
async function readProcess (pid) {
  const [stat, status, connected] = await Promise.all([
    readFile(`/proc/${pid}/stat`, 'utf8'),
    readFile(`/proc/${pid}/status`, 'utf8'),
    countEstablished(pid)
  ])
  const rssKb = /^VmRSS:\s+(\d+)\s+kB/m.exec(status)
  return { stat: parseStat(stat), rssBytes: rssKb ? Number(rssKb[1]) * 1024 : 0, connected }
}

/**
 * ESTABLISHED TCP connections owned by the process. net/tcp lists every socket of the
 * process's network namespace; its own are the inodes behind its fds.
 * @param {number} pid
 */
async function countEstablished (pid) {
  const fds = await readdir(`/proc/${pid}/fd`)
  const links = await Promise.all(fds.map((fd) => readlink(`/proc/${pid}/fd/${fd}`).catch(() => '')))
  const own = new Set(links.flatMap((link) => link.startsWith('socket:[') ? [link.slice(8, -1)] : []))
  // Counted once per inode: the kernel builds net/tcp page by page while sockets come and go,
  // and a row can come twice in one read (CI: 3 connections counted for a process with 2, while
  // other tests opened and closed thousands beside it).
  const counted = new Set()
  for (const table of ['tcp', 'tcp6']) {
    const text = await readFile(`/proc/${pid}/net/${table}`, 'utf8').catch(() => '')
    for (const inode of establishedInodes(text)) if (own.has(inode)) counted.add(inode)
  }
  return counted.size
}

/**
 * @param {number} pid
 * @param {unknown} error
 */
function unreadable (pid, error) {
  const code = /** @type {NodeJS.ErrnoException} */ (error).code
  if (code === 'ENOENT' || code === 'ESRCH') return new IoswarmError(CODES.INVALID_OPTION, `--pid ${pid}: no such process`, { flag: '--pid' })
  if (code === 'EACCES' || code === 'EPERM') {
    const fix = 'run the probe as the same user as the process, or as root'
    return new IoswarmError(CODES.INVALID_OPTION, `--pid ${pid}: cannot read /proc/${pid}/fd (${code}): ${fix}`, { flag: '--pid' })
  }
  return new IoswarmError(CODES.SERVER, `--pid ${pid}: cannot read /proc: ${/** @type {Error} */ (error).message}`)
}
