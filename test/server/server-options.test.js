import { test } from 'node:test'
import assert from 'node:assert/strict'
import { defaultServerId, normalizeServeOptions } from '../../server/server-options.js'

test('defaults: one process, memory adapter, JSON parser; --cluster 2+ defaults to the cluster adapter', () => {
  const single = normalizeServeOptions({})
  assert.equal(single.cluster, 0)
  assert.equal(single.adapter, 'memory')
  assert.equal(single.parser, 'json')
  assert.equal(single.maxHttpBufferSize, 1e6, 'socket.io\'s own default, 1MB (SI)')
  assert.equal(single.perMessageDeflate, false)
  assert.equal(single.serverId, defaultServerId())
  assert.match(defaultServerId(), /^server-[A-Za-z0-9._-]+$/)
  assert.equal(normalizeServeOptions({ cluster: '2' }).adapter, 'cluster')
  const full = normalizeServeOptions({
    cluster: '3',
    adapter: 'redis-streams',
    redis: 'redis://h:1',
    run: 'r1',
    id: 'api',
    parser: 'msgpack',
    maxHttpBufferSize: '512kb',
    pingInterval: '5s'
  })
  assert.deepEqual([full.cluster, full.adapter, full.redisUrl, full.runId, full.serverId, full.parser, full.maxHttpBufferSize, full.pingIntervalMs],
    [3, 'redis-streams', 'redis://h:1', 'r1', 'api', 'msgpack', 512_000, 5000])
})

test('combinations that cannot work are refused, naming the flag', () => {
  /** @type {[Record<string, unknown>, RegExp][]} */
  const cases = [
    [{ cluster: '-1' }, /--cluster must be a whole number from 0 to 64/],
    [{ cluster: '2', adapter: 'memory' }, /--adapter memory would keep each broadcast on one of the 2 workers/],
    [{ adapter: 'cluster' }, /--adapter cluster relays through the node:cluster primary/],
    [{ adapter: 'mongo' }, /--adapter must be one of memory, cluster, redis, redis-streams/],
    [{ cluster: '2', adapter: 'redis' }, /--redis is required with --adapter redis/],
    [{ run: 'r1' }, /--run needs --redis URL/],
    [{ parser: 'cbor' }, /--parser must be one of json, msgpack/],
    [{ id: 'a:b' }, /--id must be 1 to 100 characters/],
    [{ maxHttpBufferSize: '2gb' }, /--max-http-buffer-size must be from 1 to 1073741824 bytes/],
    [{ maxHttpBufferSize: '1 megabyte' }, /--max-http-buffer-size must be a size such as/]
  ]
  for (const [input, message] of cases) assert.throws(() => normalizeServeOptions(input), message, JSON.stringify(input))
})

test('--max-http-buffer-size means what every size option means: KB/MB 1000-based, KiB/MiB 1024-based', () => {
  assert.equal(normalizeServeOptions({ maxHttpBufferSize: '1000000' }).maxHttpBufferSize, 1e6)
  assert.equal(normalizeServeOptions({ maxHttpBufferSize: '2MB' }).maxHttpBufferSize, 2e6)
  assert.equal(normalizeServeOptions({ maxHttpBufferSize: '1MiB' }).maxHttpBufferSize, 1024 * 1024)
  assert.equal(normalizeServeOptions({ maxHttpBufferSize: ' 64 KiB ' }).maxHttpBufferSize, 64 * 1024)
  assert.throws(() => normalizeServeOptions({ maxHttpBufferSize: '0' }), /--max-http-buffer-size must be from 1/)
})
