/**
 * A private redis-server that a test can stop and start again on the same port with its
 * data kept (append-only file in a temporary directory), to play a Redis outage. Never the
 * shared server on 6379: the port is a free one chosen at start.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { findRedisServer, ping } from '../helpers/redis.js'
import { waitFor } from '../helpers/wait.js'
import { freePort } from '../helpers/ports.js'

/**
 * Starts a restartable private Redis; everything is stopped and removed in t.after.
 * @param {import('node:test').TestContext} t
 */
export async function startRestartableRedis (t) {
  const found = findRedisServer()
  if (!found) throw new Error('redis-server is not on PATH')
  const bin = found
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ioswarm-redis-'))
  const port = await freePort()
  /** @type {import('node:child_process').ChildProcess | null} */
  let child = null

  async function start () {
    // appendfsync always: a write Redis acknowledged is on disk before the outage begins.
    child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'yes',
      '--appendfsync', 'always', '--dir', dir], { stdio: 'ignore' })
    await waitFor(() => ping(port), { timeoutMs: 5000, intervalMs: 50, message: `redis-server on port ${port}` })
  }

  async function stop () {
    const running = child
    child = null
    if (!running || running.exitCode !== null || running.signalCode !== null) return
    const exited = new Promise((resolve) => running.once('exit', resolve))
    running.kill('SIGTERM')
    const timer = setTimeout(() => running.kill('SIGKILL'), 3000)
    await exited
    clearTimeout(timer)
  }

  t.after(async () => {
    await stop()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  await start()
  return { url: `redis://127.0.0.1:${port}`, port, start, stop, get pid () { return child?.pid ?? null } }
}
