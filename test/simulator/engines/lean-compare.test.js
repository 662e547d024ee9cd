/**
 * The lean engine against the fidelity reference: the same broadcasts reach 50 lean and
 * 50 socket.io-client clients (half WebSocket, half polling) with the same per-client counts.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { io as ioClient } from 'socket.io-client'
import { leanEngine } from '../../../simulator/engines/lean.js'
import { recorder, engineOptions } from './lean/helpers.js'
import { startIoServer } from '../../helpers/io-server.js'
import { waitFor } from '../../helpers/wait.js'

const CLIENTS = 50
const BROADCASTS = 20

test('the same broadcast sequence gives the same per-client counts as socket.io-client', async (t) => {
  const server = await startIoServer(t)
  const { log, events } = recorder()
  const pool = leanEngine.createPool(engineOptions(server.url), events)
  t.after(() => pool.close())
  const leanCounts = new Array(CLIENTS).fill(0)
  const record = events.message
  events.message = (i, event, args) => {
    leanCounts[i]++
    record(i, event, args)
  }
  const sioCounts = new Array(CLIENTS).fill(0)
  /** @type {import('socket.io-client').Socket[]} */
  const sockets = []
  t.after(() => sockets.forEach((s) => s.disconnect()))
  for (let i = 0; i < CLIENTS; i++) {
    const transport = i % 2 === 0 ? 'websocket' : 'polling'
    pool.connect(i, transport)
    const socket = ioClient(server.url, { forceNew: true, transports: [transport] })
    socket.on('broadcast', () => { sioCounts[i]++ })
    sockets.push(socket)
  }
  await waitFor(() => log.connected.size === CLIENTS && sockets.every((s) => s.connected), { timeoutMs: 10000, message: 'both swarms to connect' })
  assert.equal(server.io.engine.clientsCount, 2 * CLIENTS)
  for (let id = 1; id <= BROADCASTS; id++) {
    server.io.emit('broadcast', { id, sentAt: Date.now() })
    if (id % 5 === 0) await new Promise((resolve) => setImmediate(resolve))
  }
  const total = CLIENTS * BROADCASTS
  const sum = (/** @type {number[]} */ counts) => counts.reduce((a, b) => a + b, 0)
  await waitFor(() => sum(leanCounts) === total && sum(sioCounts) === total, { timeoutMs: 10000, message: 'every broadcast in both swarms' })
  assert.deepEqual(leanCounts, sioCounts)
  assert.deepEqual(leanCounts, new Array(CLIENTS).fill(BROADCASTS))
})
