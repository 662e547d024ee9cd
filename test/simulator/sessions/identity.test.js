import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { compileIdentities } from '../../../simulator/sessions/identity.js'
import { normalizeSimOptions } from '../../../simulator/sim-options.js'
import { runSwarm } from '../../../simulator/swarm/swarm.js'
import { waitFor } from '../../helpers/wait.js'
import { startIoServer } from '../../helpers/io-server.js'

/** @param {import('node:test').TestContext} t @param {string} text */
function feederFile (t, text, name = 'users.csv') {
  const dir = mkdtempSync(join(tmpdir(), 'ioswarm-identity-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const file = join(dir, name)
  writeFileSync(file, text)
  return file
}

const USERS = 'user,token\nu0,secret0\nu1,secret1\nu2,secret2\nu3,secret3\n'

test('identities: {{i}} counts from --client-offset, feeder rows by the global index, rooms by --rooms or --room', (t) => {
  const feeder = feederFile(t, USERS)
  const ids = compileIdentities(
    {
      auth: '{"token":"{{row.token}}","n":{{i}},"sim":"{{sim}}","room":"{{room}}"}',
      queryTemplate: 'user={{row.user}}&x=1',
      headers: ['X-User: {{row.user}}'],
      feeder,
      rooms: 3,
      clientOffset: 2
    },
    { simId: 's1' }
  )
  assert.equal(ids.personal, true)
  assert.deepEqual(ids.of(0), { auth: { token: 'secret2', n: 2, sim: 's1', room: 'room-2' }, query: { user: 'u2', x: '1' }, headers: { 'X-User': 'u2' } })
  assert.deepEqual(ids.of(3).auth, { token: 'secret1', n: 5, sim: 's1', room: 'room-2' }, 'row 5 mod 4 = 1, room 5 mod 3 = 2')
  assert.equal(ids.roomOf(1), 'room-0')
  const byRow = compileIdentities({ room: 'team-{{row.user}}', feeder }, { simId: 's1' })
  assert.equal(byRow.roomOf(1), 'team-u1')
  const plain = compileIdentities({ auth: '{"token":"fixed"}' }, { simId: 's1' })
  assert.equal(plain.personal, false)
  assert.equal(plain.of(0), plain.of(9), 'one shared identity when nothing differs between clients')
  assert.equal(plain.roomOf(0), null)
  const fromEnv = compileIdentities({ auth: '{"token":"{{env.APP_TOKEN}}"}' }, { simId: 's1', env: { APP_TOKEN: 'from-env' } })
  assert.deepEqual(fromEnv.of(0).auth, { token: 'from-env' })
  assert.deepEqual(
    compileIdentities({ auth: '{"token":"{{env.APP_TOKEN}}"}' }, { simId: 's1', env: {} }).of(0).auth,
    { token: '' },
    'an unset variable is empty'
  )
})

test('bad identity options are usage errors naming the flag', (t) => {
  const feeder = feederFile(t, USERS)
  const bad = (/** @type {Record<string, unknown>} */ options) => () => normalizeSimOptions({ url: 'http://127.0.0.1:1', ...options })
  assert.throws(
    bad({ auth: '{"token":"{{row.tokn}}"}', feeder }),
    /--auth uses \{\{row.tokn\}\}, but the feeder has no field "tokn" \(its fields: user, token\)/
  )
  assert.throws(bad({ auth: '{"token":{{token}}}' }), /--auth has an unknown placeholder \{\{token\}\}/)
  assert.throws(bad({ auth: '["a"]' }), /--auth must be a JSON object template/)
  assert.throws(bad({ auth: '{"a":' }), /--auth must be a JSON template/)
  assert.throws(bad({ query: 'room={{room}}' }), /--query uses \{\{room\}\}, which needs --rooms R or --room TEMPLATE/)
  assert.throws(bad({ query: 'EIO=3' }), /--query cannot set EIO: Engine.IO sets it itself/)
  assert.throws(bad({ header: 'Upgrade: h2c' }), /--header cannot set Upgrade/)
  assert.throws(bad({ header: 'no colon' }), /--header must be 'Name: value'/)
  assert.throws(bad({ header: 'X-A: {{row.user}}' }), /--header uses \{\{row.user\}\}, which needs a feeder/)
  // A line break in a template would split each request (header injection): refused before anything connects. A line feed
  // separates values given through one variable (IOSWARM_HEADER, pm2, a ConfigMap), so what follows it must be a header itself.
  assert.throws(bad({ header: 'X-A: a\rb' }), /--header X-A's value must not contain line breaks/)
  assert.throws(bad({ header: 'X-A: a\nb' }), /--header must be 'Name: value' .*got "b"/)
  assert.throws(bad({ cookie: 's=a\rb' }), /--cookie s's value must not contain ';', spaces or control characters/)
  assert.throws(bad({ cookie: 's=a\nb' }), /--cookie must be 'name=value' .*got "b"/)
  assert.throws(bad({ feeder: feederFile(t, 'user\n', 'empty.csv') }), /--feeder .*empty.csv has no rows/)
  assert.throws(bad({ rooms: 0 }), /--rooms must be a whole number from 1 to 1000000, got 0/)
  assert.throws(bad({ room: '{{room}}' }), /--room has an unknown placeholder \{\{room\}\}/)
  assert.throws(bad({ idField: 'a..b' }), /--id-field must be a dot path/)
})

/**
 * A socket.io 4 server that wants a user in the query, the same user in an X-User header on
 * every HTTP request (polls, posts and the WebSocket upgrade) and that user's token in the
 * handshake auth; it records what each accepted socket sent.
 * @param {import('node:test').TestContext} t
 */
async function startAuthServer (t) {
  const tokens = new Map([['u0', 'secret0'], ['u1', 'secret1'], ['u2', 'secret2'], ['u3', 'secret3']])
  const { io, port } = await startIoServer(t, { pingInterval: 1000, pingTimeout: 2000 })
  const requests = { total: 0, mismatched: 0 }
  io.engine.use((/** @type {import('node:http').IncomingMessage} */ req, /** @type {unknown} */ _res, /** @type {() => void} */ next) => {
    requests.total++
    const user = new URL(req.url ?? '', 'http://x').searchParams.get('user')
    if (req.headers['x-user'] !== user) requests.mismatched++
    next()
  })
  io.use((socket, next) => {
    const user = String(socket.handshake.query.user)
    next(socket.handshake.auth?.token === tokens.get(user) ? undefined : new Error('unauthorized'))
  })
  return { io, url: `http://127.0.0.1:${port}`, requests }
}

for (const engine of ['sio', 'lean']) {
  for (const transport of ['websocket', 'polling', 'upgrade']) {
    test(`${engine} ${transport}: each client sends its own auth, query and header from the feeder; wrong tokens are refused and counted`, async (t) => {
      const server = await startAuthServer(t)
      const feeder = feederFile(t, USERS)
      const controller = new AbortController()
      t.after(() => controller.abort())
      const common = { url: server.url, engine, transport, ramp: 0, duration: 30, feeder, query: 'user={{row.user}}', header: ['X-User: {{row.user}}'] }
      const good = runSwarm({ ...common, clients: 6, auth: '{"token":"{{row.token}}","n":{{i}}}', clientOffset: 1 }, { signal: controller.signal })
      await waitFor(() => server.io.of('/').sockets.size === 6, { timeoutMs: 15000, message: () => `6 clients (have ${server.io.of('/').sockets.size})` })
      const badController = new AbortController()
      // The clients connected now (the first contact's own connection has come and gone).
      const sockets = [...server.io.of('/').sockets.values()].map((s) => ({ user: s.handshake.query.user, auth: s.handshake.auth }))
      t.after(() => badController.abort())
      let errors = 0
      const bad = runSwarm({ ...common, clients: 3, auth: '{"token":"nope"}' }, { signal: badController.signal, onProgress: (p) => { errors = p.errors } })
      await waitFor(() => errors >= 3, { timeoutMs: 15000, message: () => `3 refusals counted by the swarm (have ${errors})` })
      badController.abort()
      const refused = await bad
      controller.abort()
      const result = await good
      assert.equal(result.clients.everConnected, 6)
      const users = sockets.map((a) => a.user).sort()
      assert.deepEqual(users, ['u0', 'u1', 'u1', 'u2', 'u2', 'u3'], 'clients 1..6 of the run take rows 1, 2, 3, 0, 1, 2')
      const ns = sockets.map((a) => /** @type {any} */ (a.auth).n).sort()
      assert.deepEqual(ns, [1, 2, 3, 4, 5, 6], '{{i}} is the index in the whole run')
      assert.equal(server.requests.mismatched, 0, `every HTTP request carried its client's X-User header (of ${server.requests.total})`)
      assert.equal(refused.clients.everConnected, 0)
      assert.equal(refused.clients.failed, 3)
      assert.ok((refused.clients.errors.unauthorized ?? 0) >= 3, `refusals counted by reason: ${JSON.stringify(refused.clients.errors)}`)
    })
  }
}
