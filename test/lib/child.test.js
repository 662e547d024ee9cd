import { test } from 'node:test'
import assert from 'node:assert/strict'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { forkChild } from '../../lib/child.js'

const SEND_AND_EXIT = fileURLToPath(new URL('../fixtures/send-and-exit.js', import.meta.url))

/**
 * The handle under the child's IPC channel (Node keeps it behind a symbol): stopping its reads
 * holds the child's last message in the pipe, as a parent busy with other children's results does.
 * @param {import('node:child_process').ChildProcess} child
 * @returns {{ readStop: () => void, readStart: () => void }}
 */
function channelHandle (child) {
  const key = Object.getOwnPropertySymbols(child).find((s) => String(s) === 'Symbol(kChannelHandle)')
  assert.ok(key, 'this Node keeps the IPC channel handle under Symbol(kChannelHandle)')
  return /** @type {any} */ (child)[key]
}

test('a child\'s last message is received even when its exit is seen before the channel is read', async (t) => {
  const child = forkChild(SEND_AND_EXIT, ['30000'])
  t.after(() => child.stop(2000))
  /** @type {unknown[]} */
  const messages = []
  child.process.on('message', (m) => messages.push(m))
  const handle = channelHandle(child.process)
  handle.readStop()
  // The process has exited with its message still unread in the pipe: the moment results were lost.
  await once(child.process, 'exit')
  let settled = false
  child.exited.then(() => { settled = true })
  await new Promise((resolve) => setImmediate(resolve))
  assert.equal(settled, false, 'exited waits for the channel, not only for the process')
  assert.equal(messages.length, 0)
  handle.readStart()
  const { code } = await child.exited
  assert.equal(code, 0)
  assert.equal(messages.length, 1, 'the last message arrived before exited resolved')
})

test('twelve children ending at once with large last messages: every message is received by the time each has exited', async (t) => {
  const children = Array.from({ length: 12 }, () => forkChild(SEND_AND_EXIT, [String(2_000_000)]))
  t.after(() => Promise.all(children.map((c) => c.stop(2000))))
  const received = children.map((c) => {
    let got = 0
    c.process.on('message', () => { got++ })
    return c.exited.then(({ code }) => ({ code, got }))
  })
  // A loaded parent: its loop is blocked for 5 ms out of every 6 while the results come in.
  const busy = setInterval(() => { const end = Date.now() + 5; while (Date.now() < end); }, 1)
  t.after(() => clearInterval(busy))
  const outcomes = await Promise.all(received)
  clearInterval(busy)
  assert.deepEqual(outcomes, children.map(() => ({ code: 0, got: 1 })))
})

test('a child killed before it sends anything still resolves exited (the channel closes with it)', async (t) => {
  const child = forkChild(SEND_AND_EXIT, ['1'])
  child.process.kill('SIGKILL')
  const { signal } = await child.exited
  assert.equal(signal, 'SIGKILL')
})
