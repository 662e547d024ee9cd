import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadScenario } from '../../../simulator/traffic/scenario-hooks.js'
import { normalizeSimOptions } from '../../../simulator/sim-options.js'
import { startAppServer } from '../../helpers/app-server.js'
import { startTestSwarm } from '../../helpers/swarm.js'
import { waitFor } from '../../helpers/wait.js'

/** @param {import('node:test').TestContext} t @param {string} name @param {string} text */
function moduleFile (t, name, text) {
  const dir = mkdtempSync(join(tmpdir(), 'ioswarm-scenario-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, name)
  writeFileSync(file, text)
  return file
}

test('a scenario must be a module of known hooks; anything else is a usage error naming --scenario', async (t) => {
  assert.throws(() => normalizeSimOptions({ scenario: 'hooks.txt' }), /^IoswarmError: --scenario must be a JavaScript module \(.js or .mjs\)/)
  assert.throws(() => normalizeSimOptions({ scenario: '/nope/hooks.js' }), /--scenario cannot read "\/nope\/hooks.js": no such file/)
  await assert.rejects(
    loadScenario(moduleFile(t, 'typo.js', 'export function onConect () {}')),
    /--scenario .*typo.js exports onConect; a scenario exports hooks: identity, onConnect, onEvent, onDisconnect/
  )
  await assert.rejects(loadScenario(moduleFile(t, 'empty.js', 'export default 1')), /exports no hook/)
  await assert.rejects(loadScenario(moduleFile(t, 'broken.js', 'export function onConnect ( {')), /--scenario .*broken.js could not be loaded/)
  await assert.rejects(loadScenario(moduleFile(t, 'value.js', 'export const onEvent = 3')), /onEvent must be a function/)
})

test('lean: an emit with binary data is a hook error naming --engine sio, not JSON sent in its place', async (t) => {
  const server = await startAppServer(t)
  /** @type {unknown[]} */
  const avatars = []
  /** @type {string[]} */
  const refusals = []
  server.io.on('connection', (socket) => {
    socket.on('avatar', (data) => avatars.push(data))
    socket.on('refused', (data) => refusals.push(data.message))
  })
  const file = moduleFile(t, 'binary.js', `
    export async function onConnect (socket) {
      try {
        await socket.emitWithAck('avatar', [new Uint8Array(2)])
      } catch (error) {
        socket.emit('refused', { message: error.message })
      }
      socket.emit('avatar', { name: 'me', image: Buffer.from([1, 2, 3]) })
    }
  `)
  const swarm = startTestSwarm(t, { url: server.url, engine: 'lean', clients: 2, scenario: file })
  await waitFor(() => refusals.length === 2 && swarm.progress?.connected === 2, { message: () => `2 refusals told (have ${refusals.length})` })
  const result = await swarm.stop()
  const refusal = 'emit "avatar" carries binary data (a Buffer or typed array): the lean engine sends JSON only; use --engine sio'
  assert.deepEqual(refusals, [refusal, refusal], 'emitWithAck rejects with the reason')
  assert.deepEqual(result.scenario?.hooks?.errors, { [refusal]: 2 }, 'emit throws: a hook error')
  assert.equal(result.scenario?.hooks?.emits.sent, 2, 'the JSON emits went')
  assert.deepEqual(avatars, [], 'nothing of the binary emits reached the server')
})

for (const engine of ['sio', 'lean']) {
  test(`${engine}: hooks get every event, their errors are counted, not thrown, and identity() sets each handshake`, async (t) => {
    const server = await startAppServer(t, { authToken: 'tok' })
    const file = moduleFile(t, 'hooks.js', `
      export function identity (i, ctx) { return { auth: { token: 'tok', i: ctx.i } } }
      export function onConnect (socket, ctx) { socket.emit('hello', { from: ctx.i }) }
      export function onEvent (socket, event, args) { if (event === 'boom') throw new Error('bad ' + event) }
    `)
    const swarm = startTestSwarm(t, { url: server.url, engine, clients: 3, scenario: file, clientOffset: 10 })
    await waitFor(() => server.io.of('/').sockets.size === 3, { timeoutMs: 10000 })
    assert.deepEqual([...server.io.of('/').sockets.values()].map((s) => s.handshake.auth.i).sort(), [10, 11, 12])
    server.io.emit('boom', 1)
    server.io.emit('broadcast', { id: 'b1', sentAt: Date.now() })
    await waitFor(() => swarm.closed.some((m) => m.id === 'b1'), { timeoutMs: 10000 })
    const result = await swarm.stop()
    assert.deepEqual(result.scenario?.hooks?.errors, { 'bad boom': 3 })
    assert.equal(result.scenario?.hooks?.calls.onEvent, 6, 'boom and broadcast, to 3 clients')
    assert.deepEqual(result.messages.map((m) => m.id), ['b1'], 'only the measured event is recorded')
    assert.equal(result.scenario?.hooks?.emits.sent, 3)
  })

  test(`${engine}: the run ends after the hooks' lines in flight (emitWithAck): acked, not failed`, async (t) => {
    // Each line is relayed and acked 300 ms after the server hears it: at any time, lines are in flight.
    const server = await startAppServer(t, { relayDelayMs: 300 })
    const file = moduleFile(t, 'lines.js', `
      export function onConnect (socket, ctx) {
        let n = 0
        socket.every(50, () => socket.emitWithAck('chat', { id: ctx.i + '.' + ++n, text: 'hi' }))
      }
    `)
    const swarm = startTestSwarm(t, { url: server.url, engine, clients: 3, scenario: file, event: 'chat' })
    await waitFor(() => server.counts.chats >= 20, { timeoutMs: 15000, message: () => `20 lines heard (have ${server.counts.chats})` })
    const result = await swarm.stop()
    const emits = result.scenario?.hooks?.emits
    assert.ok(emits && emits.sent >= 20, JSON.stringify(emits))
    assert.deepEqual([emits.acked, emits.timedOut, emits.failed], [emits.sent, 0, 0], 'every line in flight at the end was acked')
    for (const m of result.messages) assert.equal(m.missing, 0, m.id)
    assert.deepEqual(result.scenario?.hooks?.errors, {})
  })
}
