import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startServerProcess } from '../../runner/processes.js'
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { waitFor } from '../helpers/wait.js'

test('the reference server process takes any token, even one that looks like a flag', async (t) => {
  const token = '-27jmXZwTCcDsAeEavQIy'
  const server = await startServerProcess({ token, pingIntervalMs: 1000 })
  t.after(() => server.stop())
  const refused = await fetch(`${server.url}/broadcast`, { method: 'POST', headers: { authorization: 'Bearer wrong' } })
  assert.equal(refused.status, 401)
  const accepted = await fetch(`${server.url}/broadcast`, { method: 'POST', headers: { authorization: `Bearer ${token}` } })
  assert.equal(accepted.status, 200)
  await server.stop()
  assert.equal((await server.exited).code, 0, 'SIGTERM stops it cleanly')
})

test('a stopped (SIGSTOP) child still gets its SIGTERM and exits cleanly, not by the SIGKILL after the grace', async (t) => {
  const server = await startServerProcess({ token: 'x', pingIntervalMs: 1000 })
  t.after(() => { if (server.running()) server.process.kill('SIGKILL') })
  server.process.kill('SIGSTOP')
  // The grace is long enough that a SIGKILL after it would show as signal 'SIGKILL'.
  await server.stop(15000)
  assert.deepEqual(await server.exited, { code: 0, signal: null }, 'resumed, handled SIGTERM')
  assert.equal(server.running(), false)
})

test('a child whose parent is killed (SIGKILL) closes by itself instead of running on orphaned', async (t) => {
  const script = `
    import { startServerProcess } from ${JSON.stringify(new URL('../../runner/processes.js', import.meta.url).href)}
    const server = await startServerProcess({ token: 't', pingIntervalMs: 1000 })
    process.stdout.write(String(server.pid) + '\\n')
    setInterval(() => {}, 1000)`
  const parent = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'inherit'] })
  t.after(() => { parent.kill('SIGKILL') })
  let out = ''
  parent.stdout.on('data', (d) => { out += d })
  const pid = Number(await waitFor(() => out.includes('\n') && out.trim(), { timeoutMs: 20000, message: 'the server child\'s pid' }))
  t.after(() => { try { process.kill(pid, 'SIGKILL') } catch {} })
  parent.kill('SIGKILL')
  await waitFor(() => !alive(pid), { timeoutMs: 10000, message: `server child ${pid} gone after its parent` })
})

/** @param {number} pid */
function alive (pid) {
  try {
    process.kill(pid, 0)
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].startsWith('Z')
  } catch {
    return false
  }
}
