/**
 * A simulator child (simulator/processes/child.js, forked over IPC) that gets SIGTERM before its simulate
 * message has nothing to flush: it exits at once, where its IPC channel alone kept it running.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { fork } from 'node:child_process'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { EXIT } from '../../../lib/errors.js'
import { CHILD_MESSAGE } from '../../../simulator/processes/child-messages.js'

const CHILD = fileURLToPath(new URL('../../../simulator/processes/child.js', import.meta.url))

test('a child signalled before its simulate message exits at once with the interrupted code', { timeout: 60000 }, async (t) => {
  const child = fork(CHILD, [], { stdio: ['ignore', 'ignore', 'pipe', 'ipc'] })
  t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  const exited = once(child, 'exit')
  // Its answer to a resize proves it has loaded and set its signal handlers.
  const answered = once(child, 'message')
  child.send({ type: CHILD_MESSAGE.RESIZE, clients: 1 })
  const [answer] = await answered
  assert.deepEqual(answer, { type: CHILD_MESSAGE.RESIZED, clients: 1, error: 'the swarm has not started yet' })
  child.kill('SIGTERM')
  const timer = setTimeout(() => child.kill('SIGKILL'), 20000)
  const [code, signal] = await exited
  clearTimeout(timer)
  assert.deepEqual([code, signal], [EXIT.INTERRUPTED, null], 'exited by itself, not killed after 20 s')
})
