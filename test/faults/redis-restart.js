/**
 * A private redis-server that a test can stop and start again on the same port with its
 * data kept (append-only file in a temporary directory), to play a Redis outage. Never the
 * shared server on 6379: the port is a free one chosen at start.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { ping, spawnRedis } from '../helpers/redis.js'
import { freePort } from '../helpers/ports.js'

/**
 * Starts a restartable private Redis; everything is stopped and removed in t.after.
 * @param {import('node:test').TestContext} t
 */
export async function startRestartableRedis (t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ioswarm-redis-'))
  const port = await freePort()
  /** @type {{ pid: number, stop: () => Promise<void> } | null} */
  let server = null

  async function start () {
    // appendfsync always: a write Redis acknowledged is on disk before the outage begins.
    server = await spawnRedis(['--port', String(port), '--appendonly', 'yes', '--appendfsync', 'always', '--dir', dir], () => ping(port))
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
  await start()
  return { url: `redis://127.0.0.1:${port}`, port, start, stop, get pid () { return server?.pid ?? null } }
}
