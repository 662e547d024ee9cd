import http from 'node:http'
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runCli } from '../helpers/cli.js'

test('broadcast --message that is not JSON exits 2 naming --message, before sending anything', async (t) => {
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'broadcast', '--url', 'http://127.0.0.1:1', '--token', 't', '--message', '{"ts": {{sentAt}'])
  assert.equal(code, 2)
  assert.match(stderr, /^ioswarm: --message must be a JSON template/m)
  assert.doesNotMatch(stderr, /ECONNREFUSED/, 'nothing was sent')
})

test('broadcast --rounds none exits 2 naming --rounds: none is a run without a broadcaster', async (t) => {
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'broadcast', '--url', 'http://127.0.0.1:1', '--token', 't', '--rounds', 'none'])
  assert.equal(code, 2)
  assert.match(stderr, /--rounds none is for `ioswarm run`/)
})

test('broadcast --via redis-emitter needs --redis but no token', async (t) => {
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'broadcast', '--via', 'redis-emitter'], { env: { IOSWARM_REDIS: '', IOSWARM_TOKEN: '' } })
  assert.equal(code, 2)
  assert.match(stderr, /--redis is required with --via redis-emitter/)
})

test('broadcast --rooms --namespace (twice) --to: the flags become the POST /broadcast body', async (t) => {
  /** @type {any[]} */
  const bodies = []
  const server = http.createServer(async (req, res) => {
    let text = ''
    for await (const chunk of req) text += chunk
    const body = JSON.parse(text)
    bodies.push(body)
    res.setHeader('content-type', 'application/json')
    res.end(JSON.stringify({ messages: [{ id: `${body.round}.${body.seq}`, sentAt: Date.now(), recipients: 1, room: `room-${(body.seq - 1) % body.rooms}` }] }))
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => server.close())
  const url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`
  const { code, stdout, stderr } = await runCli(t, [
    'bin/ioswarm.js', 'broadcast', '--url', url, '--token', 't', '--rounds', '3x0', '--rooms', '2', '--namespace', '/a',
    '--namespace', '/b', '--json'
  ])
  assert.equal(code, 0, stderr)
  assert.deepEqual(bodies.map((b) => [b.seq, b.rooms, b.namespace, 'room' in b]).sort(), [
    [1, 2, ['/a', '/b'], false],
    [2, 2, ['/a', '/b'], false],
    [3, 2, ['/a', '/b'], false]
  ])
  assert.match(stderr, /1\.2 .* sent to room-1 \(1 clients\)/)
  assert.deepEqual(JSON.parse(stdout).messages.map((/** @type {any} */ m) => m.room).sort(), ['room-0', 'room-0', 'room-1'])

  bodies.length = 0
  const one = await runCli(t, ['bin/ioswarm.js', 'broadcast', '--url', url, '--token', 't', '--rounds', '1x0', '--to', 'match-7'], {
    env: { IOSWARM_NAMESPACE: '' }
  })
  assert.equal(one.code, 0, one.stderr)
  assert.equal(bodies[0].room, 'match-7')
  assert.equal('rooms' in bodies[0] || 'namespace' in bodies[0], false)

  const both = await runCli(t, ['bin/ioswarm.js', 'broadcast', '--url', url, '--token', 't', '--to', 'a', '--rooms', '2'])
  assert.equal(both.code, 2)
  assert.match(both.stderr, /--to and --rooms cannot both be given/)
})
