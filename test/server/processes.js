/**
 * Child processes for the server tests, each stopped in t.after: `ioswarm serve` (a cluster
 * primary cannot share the test process), started with --json and stopped, the primary by
 * SIGTERM and every worker by its pid should one outlive it; and tcp-child.js for the
 * /proc probe.
 */
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { ROOT } from '../helpers/cli.js'
import { waitFor } from '../helpers/wait.js'

export const TOKEN = 'cluster-test-token'

/** @param {number} pid */
function alive (pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

/**
 * @param {import('node:test').TestContext} t
 * @param {string[]} args more `serve` flags
 * @param {Record<string, string>} [env] more environment variables (IOSWARM_AUTH_TOKEN)
 * @returns {Promise<{ url: string, port: number, pid: number, workers: { index: number, pid: number }[], stderr: () => string, stats: () => Promise<any>, exited: Promise<number | null> }>}
 */
export async function startServeProcess (t, args, env = {}) {
  const child = spawn(process.execPath, ['bin/ioswarm.js', 'serve', '--port', '0', '--host', '127.0.0.1', '--token', TOKEN, '--json', ...args], {
    cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', ...env }
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d) => { stdout += d })
  child.stderr.on('data', (d) => { stderr += d })
  const exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)))
  /** @type {number[]} */
  let workerPids = []
  t.after(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await waitFor(() => child.exitCode !== null || child.signalCode !== null, { timeoutMs: 10000 }).catch(() => {})
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    for (const pid of workerPids) if (alive(pid)) process.kill(pid, 'SIGKILL')
  })
  await Promise.race([
    waitFor(() => stdout.includes('\n'), { timeoutMs: 30000, message: () => `serve to print its address (stderr: ${stderr})` }),
    exited.then((code) => { throw new Error(`serve exited with code ${code} before listening: ${stderr}`) })
  ])
  const info = JSON.parse(stdout.split('\n')[0])
  workerPids = info.workers.map((/** @type {{ pid: number }} */ w) => w.pid)
  return {
    ...info,
    stderr: () => stderr,
    exited,
    stats: async () => (await fetch(`${info.url}/stats`)).json()
  }
}

const CHILD = fileURLToPath(new URL('./tcp-child.js', import.meta.url))

/**
 * Starts tcp-child.js; killed by pid after the test.
 * @param {import('node:test').TestContext} t
 */
export async function startTcpChild (t) {
  const child = spawn(process.execPath, [CHILD], { stdio: ['pipe', 'pipe', 'inherit'] })
  t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  await waitFor(() => out.includes('ready'), { message: 'the child to connect to itself' })
  return child
}
