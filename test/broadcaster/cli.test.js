import { test } from 'node:test'
import assert from 'node:assert/strict'
import { runCli } from '../helpers/cli.js'

test('broadcast --message that is not JSON exits 2 naming --message, before sending anything', async (t) => {
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'broadcast', '--url', 'http://127.0.0.1:1', '--token', 't', '--message', '{"ts": {{sentAt}'])
  assert.equal(code, 2)
  assert.match(stderr, /^ioswarm: --message must be a JSON template/m)
  assert.doesNotMatch(stderr, /ECONNREFUSED/, 'nothing was sent')
})

test('broadcast --via redis-emitter needs --redis but no token', async (t) => {
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'broadcast', '--via', 'redis-emitter'], { env: { IOSWARM_REDIS: '', IOSWARM_TOKEN: '' } })
  assert.equal(code, 2)
  assert.match(stderr, /--redis is required with --via redis-emitter/)
})
