import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { normalizeSimOptions } from '../../../simulator/sim-options.js'
import { startPythonPeer } from '../../helpers/peers.js'
import { startTestSwarm } from '../../helpers/swarm.js'
import { runCli } from '../../helpers/cli.js'
import { waitFor } from '../../helpers/wait.js'
import { startIoServer } from '../../helpers/io-server.js'

/**
 * A socket.io 4 app that answers `move` {id} with events instead of an ack, as the python
 * peer does (test/peers/python/server.py): a `state` for another id, then `state` {id, ok} to
 * the sender; `stall` is never answered.
 * @param {import('node:test').TestContext} t
 */
async function startReplyServer (t) {
  const { io, url } = await startIoServer(t, { pingInterval: 1000, pingTimeout: 2000 })
  io.on('connection', (socket) => {
    socket.on('move', (/** @type {{ id?: string }} */ data) => {
      socket.emit('state', { id: 'someone-else', ok: true })
      socket.emit('state', { id: data?.id, ok: true })
    })
  })
  return { io, url }
}

/**
 * The hooks in a file of their own, and the file they write a line to when a client is done.
 * @param {import('node:test').TestContext} t
 * @param {string} text
 */
function hooksFile (t, text) {
  const dir = mkdtempSync(join(tmpdir(), 'ioswarm-replies-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, 'hooks.js')
  const done = join(dir, 'done.txt')
  writeFileSync(done, '')
  writeFileSync(file, text.replace('DONE_FILE', JSON.stringify(done)))
  return { file, done }
}

// Each client: 3 moves answered (the decoy state for another id is not the reply), then a stall
// that times out; then it writes a line to DONE_FILE, which the test waits for.
const HOOKS = `
  import { appendFileSync } from 'node:fs'
  export async function onConnect (socket, ctx) {
    for (let n = 1; n <= 3; n++) {
      const [state] = await socket.emitAndWait('move', { id: ctx.i + '.' + n }, 'state', 'id')
      if (state.id !== ctx.i + '.' + n) throw new Error('wrong reply ' + state.id)
      ctx.count('moved')
    }
    await socket.emitAndWait('stall', [{ id: 's' + ctx.i }], 'state', 'id').catch(() => ctx.count('stalled'))
    appendFileSync(DONE_FILE, ctx.i + '\\n')
  }
`

test('--reply-match without --reply-event, --reply-event with nothing that emits, a bad path: usage errors naming the flag; the CLI exits 2', async (t) => {
  assert.throws(() => normalizeSimOptions({ emit: 'move {}', replyMatch: 'id' }), /^IoswarmError: --reply-match needs --reply-event EVENT/)
  assert.throws(
    () => normalizeSimOptions({ replyEvent: 'state' }),
    /^IoswarmError: --reply-event needs --emit \(each emit then waits for this event\) or --scenario/
  )
  assert.throws(() => normalizeSimOptions({ emit: 'move {}', replyEvent: 'state', replyMatch: 'a..b' }), /^IoswarmError: --reply-match must be a dot path/)
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'simulate', '--url', 'http://127.0.0.1:1', '--emit', 'move {}', '--reply-match', 'id'])
  assert.equal(code, 2)
  assert.match(stderr, /--reply-match needs --reply-event/)
})

for (const engine of ['sio', 'lean']) {
  for (const kind of ['socket.io 4', 'python-socketio']) {
    test(`${engine}, ${kind}: a hook's emitAndWait times the reply event that matches its emit; one never answered is counted as timed out`, async (t) => {
      const server = kind === 'python-socketio' ? await startPythonPeer(t, { pingIntervalS: 1 }) : await startReplyServer(t)
      if (server === null) return
      const hooks = hooksFile(t, HOOKS)
      const swarm = startTestSwarm(t, { url: server.url, engine, clients: 3, scenario: hooks.file, replyEvent: 'state', ackTimeout: '400ms' })
      const lines = () => readFileSync(hooks.done, 'utf8').split('\n').filter(Boolean).length
      await waitFor(() => lines() === 3, { timeoutMs: 15000, message: () => `3 clients done (have ${lines()})` })
      const result = await swarm.stop()
      const replies = result.scenario?.replies
      assert.ok(replies, JSON.stringify(result.scenario))
      assert.deepEqual([replies.sent, replies.replied, replies.timedOut, replies.failed], [12, 9, 3, 0], JSON.stringify(replies))
      assert.equal(replies.time.count, 9)
      assert.deepEqual(replies.events, ['state'])
      assert.deepEqual(result.custom?.counts, { moved: 9, stalled: 3 })
      assert.deepEqual(result.scenario?.hooks?.errors, {}, 'every reply was the one its emit matched')
      assert.equal(result.messages.length, 0, 'a reply event is not measured as a broadcast')
    })
  }
}

test('the flag form: --emit … --reply-event state --reply-match id (python-socketio, --workers 2): ' +
  'sent, replied, reply p50/p99 merged into the result, its windows and the summary', async (t) => {
  const peer = await startPythonPeer(t, { pingIntervalS: 1 })
  if (peer === null) return
  const { code, stdout, stderr } = await runCli(t, [
    'bin/ioswarm.js', 'simulate', '-c', '4', '--workers', '2', '--url', peer.url, '--ramp', '0', '--duration', '2', '--emit', 'move {"text":"e4"}',
    '--emit-rate', '5/s', '--reply-event', 'state', '--reply-match', 'id', '--window', '1s', '--json'
  ], { timeoutMs: 30000 })
  assert.equal(code, 0, stderr)
  const { scenario, windows } = JSON.parse(stdout)
  assert.ok(scenario.replies.sent >= 6, JSON.stringify(scenario.replies))
  assert.equal(scenario.replies.replied, scenario.replies.sent, 'every emit got its own reply (the run waits for those in flight)')
  assert.equal(scenario.replies.timedOut, 0)
  assert.equal(scenario.emits.sent, scenario.replies.sent)
  // --window: each emit in the window it was sent in, each reply in the window it came in.
  const inWindows = (/** @type {'sent' | 'replied'} */ key) => windows.reduce((/** @type {number} */ n, /** @type {any} */ w) => n + (w.replies?.[key] ?? 0), 0)
  assert.deepEqual([inWindows('sent'), inWindows('replied')], [scenario.replies.sent, scenario.replies.replied])
  assert.match(stderr, /window [\d:]+–[\d:]+: .*; replies \d+ sent, \d+ replied, reply p50 [\d.]+ ?ms p99/)
  assert.match(stderr, /replies \(state, events instead of acks\): sent \d+, replied \d+, timed out 0, failed 0; reply time p50 [\d.]+ ?ms, p99/)
})
