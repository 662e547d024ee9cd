/**
 * The sio engine's end of a swarm (simulator/engines/sio.js): a request that engine.io-client
 * sends after the swarm closed (a poll, a close packet's POST) fails at once with its error told,
 * so the client that sent it closes and the process can exit.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import { once } from 'node:events'
import { refuseRequests } from '../../../simulator/engines/sio.js'
import { waitFor } from '../../helpers/wait.js'

test('a request through the agent after the swarm closed fails: its error and close are emitted, and no connection is opened', async (t) => {
  let connections = 0
  const server = http.createServer((_req, res) => res.end('ok'))
  server.on('connection', () => { connections++ })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.after(() => server.close())
  const agent = new http.Agent({ keepAlive: true })
  t.after(() => agent.destroy())
  refuseRequests(agent)
  const req = http.request(`http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/`, { agent })
  /** @type {string[]} */
  const told = []
  req.on('error', (error) => told.push(`error: ${error.message}`))
  req.on('close', () => told.push('close'))
  req.end()
  // Before: neither ever came (a request destroyed before it had a socket emits nothing).
  await waitFor(() => told.length === 2, { timeoutMs: 5000, message: () => `the request's error and close (have ${JSON.stringify(told)})` })
  assert.deepEqual(told.sort(), ['close', 'error: the swarm is closed'])
  assert.equal(connections, 0)
})
