/**
 * A private redis-server that a test can stop and start again on the same port with its
 * data kept (append-only file in a temporary directory), to play a Redis outage. Never the
 * shared server on 6379: its first start takes a port nobody listened on (ports.js); a
 * restart needs that same port back, and fails saying so if another process took it.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { spawnRedis } from '../helpers/redis.js'
import { onClosedPort } from '../helpers/ports.js'

/**
 * Starts a restartable private Redis; everything is stopped and removed in t.after.
 * @param {import('node:test').TestContext} t
 */
export async function startRestartableRedis (t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ioswarm-redis-'))
  /** @type {{ pid: number, stop: () => Promise<void> } | null} */
  let server = null

  /** @param {number} at */
  async function startAt (at) {
    // appendfsync always: a write Redis acknowledged is on disk before the outage begins.
    server = await spawnRedis(['--port', String(at), '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir], at)
    return at
  }

  async function stop () {
    const running = server
    server = null
    await running?.stop()
  }

  t.after(async () => {
    await stop()
    fs.rmSync(dir, { recursive: true, force: true })
  })
  const port = await onClosedPort(startAt)
  const start = () => startAt(port)
  return { url: `redis://127.0.0.1:${port}`, port, start, stop, get pid () { return server?.pid ?? null } }
}
