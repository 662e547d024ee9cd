import { test } from 'node:test'
import assert from 'node:assert/strict'
import { startTestServer } from '../helpers/swarm.js'
import { connect, connectMultiplexed, refusal } from '../helpers/sio-client.js'
import { sumAppCounts } from '../../server/app.js'

const TOKEN = 'app-s3cret'

/** @param {{ url: string }} server */
async function stats (server) {
  return /** @type {any} */ (await (await fetch(`${server.url}/stats`)).json())
}

test('--auth-token: refused without the token or with a wrong one, in every carrier; counted, never echoed', async (t) => {
  const server = await startTestServer(t, { authToken: TOKEN })
  const wrong = `${TOKEN}x`
  const attempts = [
    {},
    { auth: { token: wrong } },
    { query: { token: wrong } },
    { extraHeaders: { authorization: `Bearer ${wrong}` } },
    { extraHeaders: { authorization: TOKEN } }, // not a Bearer header
    { auth: { token: 42 } }
  ]
  for (const options of attempts) {
    const message = await refusal(t, server.url, options)
    assert.equal(message, 'unauthorized', JSON.stringify(options))
  }
  const { app } = await stats(server)
  assert.equal(app.refused, attempts.length)
  assert.deepEqual(app.namespaces, { '/': 0 })
  assert.ok(!JSON.stringify(await stats(server)).includes(TOKEN))
})

test('--auth-token: accepted with the token in auth, in the query, or as a Bearer header, over websocket and polling', async (t) => {
  const server = await startTestServer(t, { authToken: TOKEN })
  const carriers = {
    auth: { auth: { token: TOKEN } },
    query: { query: { token: TOKEN } },
    header: { extraHeaders: { authorization: `Bearer ${TOKEN}` } }
  }
  for (const [name, options] of Object.entries(carriers)) {
    for (const transports of [['websocket'], ['polling']]) {
      const socket = await connect(t, server.url, { ...options, transports })
      assert.ok(socket.connected, `${name} over ${transports[0]}`)
    }
  }
  const { app, connected, byTransport } = await stats(server)
  assert.equal(app.refused, 0)
  assert.equal(app.namespaces['/'], 6)
  assert.equal(connected, 6)
  assert.deepEqual(byTransport, { websocket: 3, polling: 3 })
})

test('--namespace: each app namespace is served (auth on each), one connection counts once, / is refused when not one of them', async (t) => {
  const server = await startTestServer(t, { namespaces: ['/a', '/b'], authToken: TOKEN })
  const [a, b] = await connectMultiplexed(t, server.url, ['/a', '/b'], { auth: { token: TOKEN } })
  assert.ok(a.connected && b.connected)
  await connect(t, `${server.url}/a`, { auth: { token: TOKEN } })
  assert.equal(await refusal(t, `${server.url}/b`, { auth: { token: 'nope' } }), 'unauthorized')
  assert.equal(await refusal(t, server.url, { auth: { token: TOKEN } }), 'Invalid namespace')
  assert.equal(await refusal(t, `${server.url}/c`, { auth: { token: TOKEN } }), 'Invalid namespace')
  const s = await stats(server)
  assert.deepEqual(s.app.namespaces, { '/a': 2, '/b': 1 })
  assert.equal(s.connected, 2, 'the multiplexed client is one connection')
  assert.equal(s.app.refused, 1)
})

test('without --auth-token every client connects; app counts start at zero', async (t) => {
  const server = await startTestServer(t)
  await connect(t, server.url)
  const { app } = await stats(server)
  assert.deepEqual(app, {
    namespaces: { '/': 1 },
    refused: 0,
    rooms: { joins: 0, leaves: 0, rejected: 0 },
    relay: { received: 0, relayed: 0, rejected: 0, limited: 0 }
  })
})

test('bad namespaces, relay event or relay rate are refused naming the flag', async () => {
  const { startServer } = await import('../../server/index.js')
  await assert.rejects(startServer({ port: 0, namespaces: ['chat'] }), /--namespace must be a namespace/)
  await assert.rejects(startServer({ port: 0, namespaces: ['/ioswarm-admin'] }), /--namespace must not be the admin namespace/)
  await assert.rejects(startServer({ port: 0, relayEvent: 'join' }), /--relay-event must be an event name/)
  await assert.rejects(startServer({ port: 0, relayRate: 'fast' }), /--relay-rate must be a positive number/)
})

test('sumAppCounts adds up every count, namespace by namespace', () => {
  const one = {
    namespaces: { '/': 2, '/a': 1 },
    refused: 1,
    rooms: { joins: 3, leaves: 1, rejected: 0 },
    relay: { received: 5, relayed: 4, rejected: 1, limited: 0 }
  }
  const two = { namespaces: { '/': 3 }, refused: 2, rooms: { joins: 1, leaves: 0, rejected: 2 }, relay: { received: 1, relayed: 1, rejected: 0, limited: 3 } }
  assert.deepEqual(sumAppCounts([one, two]), {
    namespaces: { '/': 5, '/a': 1 },
    refused: 3,
    rooms: { joins: 4, leaves: 1, rejected: 2 },
    relay: { received: 6, relayed: 5, rejected: 1, limited: 3 }
  })
})
