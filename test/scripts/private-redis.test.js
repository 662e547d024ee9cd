/**
 * A test file's private redis-server must not outlive it, even when the file is stopped by a
 * signal (a runner's timeout, a kill by pid), which runs no 'exit' listener.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { runCli } from '../helpers/cli.js'
import { hasRedisServer } from '../helpers/redis.js'
import { waitFor } from '../helpers/wait.js'

/** @param {number} pid a process that is running (not gone, not a zombie waiting to be reaped) */
function running (pid) {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'))
  } catch {
    return false
  }
}

const HOLDER = "import { startPrivateRedis } from './test/helpers/redis.js'\n" +
  'const redis = await startPrivateRedis()\nconsole.log(redis.pid)\nsetInterval(() => {}, 1000)'

for (const signal of /** @type {const} */ (['SIGTERM', 'SIGINT'])) {
  test(`a private Redis stops with its test file on ${signal}, and the file still ends by the signal`, async (t) => {
    if (!hasRedisServer(t)) return
    const holder = runCli(t, ['--input-type=module', '-e', HOLDER], { timeoutMs: 30000 })
    await waitFor(() => /^\d+\n/.test(holder.output().stdout), { message: () => `the Redis pid (${holder.output().stderr})` })
    const pid = Number(holder.output().stdout.trim())
    t.after(() => { if (running(pid)) process.kill(pid, 'SIGKILL') })
    assert.ok(running(pid), 'the server runs while its file does')
    holder.child.kill(signal)
    const end = await holder
    assert.equal(end.signal, signal, end.stderr)
    await waitFor(() => !running(pid), { message: `redis-server ${pid} gone after ${signal}` })
  })
}
