/**
 * A JSON result is never lost to a closed stdout: when the reader of the pipe is gone (EPIPE),
 * the command saves the result to a file and names it on stderr.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync, rmSync } from 'node:fs'
import { BIN } from '../helpers/cli.js'
import { startTestServer } from '../helpers/swarm.js'

test('simulate --json with its stdout closed (EPIPE) saves the result to a file and says where', async (t) => {
  const server = await startTestServer(t)
  const child = spawn(process.execPath, [BIN, 'simulate', '--url', server.url, '-c', '2', '--ramp', '100ms', '--duration', '1s', '--json', '--quiet'], {
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.after(() => { if (child.exitCode === null && child.pid) process.kill(child.pid, 'SIGKILL') })
  // The reader goes away before the result is written.
  child.stdout.destroy()
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d) => { stderr += d })
  const [code] = await once(child, 'exit')
  assert.equal(code, 0, stderr)
  const file = /stdout closed \(EPIPE\): the result is saved in (\S+)/.exec(stderr)?.[1]
  assert.ok(file, stderr)
  t.after(() => rmSync(file, { force: true }))
  const result = JSON.parse(readFileSync(file, 'utf8'))
  assert.equal(result.clients.target, 2)
  assert.equal(result.clients.everConnected, 2)
})
