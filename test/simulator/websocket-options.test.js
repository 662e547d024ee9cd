import { test } from 'node:test'
import assert from 'node:assert/strict'
import { normalizeSimOptions } from '../../simulator/sim-options.js'
import { webSocketServerInfo } from '../../simulator/websocket-options.js'
import { DEFAULT_WEBSOCKET_RAMP_MS } from '../../lib/values/option-values.js'

test('--protocol websocket: the URL is the endpoint, path and query included; the engine is websocket', () => {
  const o = normalizeSimOptions({ protocol: 'websocket', url: 'ws://127.0.0.1:8080/feed?channel=a' })
  assert.equal(o.protocol, 'websocket')
  assert.equal(o.url, 'ws://127.0.0.1:8080/feed?channel=a')
  assert.equal(o.engine, 'websocket')
  assert.equal(o.wsClient, 'ws')
  assert.deepEqual(o.query, {})
  assert.deepEqual(normalizeSimOptions({ protocol: 'websocket', url: ['https://h:1/x', 'http://h:2/x'] }).urls, ['wss://h:1/x', 'ws://h:2/x'])
  assert.deepEqual(normalizeSimOptions({ protocol: 'websocket', url: 'ws://127.0.0.1-127.0.0.2:9/' }).urls, ['ws://127.0.0.1:9/', 'ws://127.0.0.2:9/'])
  const full = normalizeSimOptions({
    protocol: 'websocket',
    url: 'ws://h:1',
    wsClient: 'builtin',
    subprotocol: ['a', 'b.v2'],
    match: ['type=score', 'data.ch=x=y'],
    sendOnOpen: 'hello {{i}}'
  })
  assert.equal(full.wsClient, 'builtin')
  assert.equal(
    normalizeSimOptions({ protocol: 'websocket', url: 'wss://h:1', wsClient: 'builtin' }).wsClient,
    'builtin',
    'the built-in client speaks wss:// too'
  )
  assert.deepEqual(full.subprotocols, ['a', 'b.v2'])
  assert.deepEqual(full.match, [['type', 'score'], ['data.ch', 'x=y']])
  assert.equal(full.sendOnOpen, 'hello {{i}}')
})

test('Socket.IO-only options are refused with --protocol websocket, naming the flag', () => {
  const base = { protocol: 'websocket', url: 'ws://h:1' }
  /** @type {[Record<string, unknown>, RegExp][]} */
  const cases = [
    [{ namespace: '/chat' }, /--namespace is a Socket\.IO option, not for --protocol websocket/],
    [{ parser: 'msgpack' }, /--parser is a Socket\.IO option/],
    [{ eio: '3' }, /--eio is a Socket\.IO option/],
    [{ path: '/rt' }, /--path is a Socket\.IO option.*in --url/],
    [{ auth: '{"t":1}' }, /--auth is a Socket\.IO option.*--header, --query or --send-on-open/],
    [{ engine: 'lean' }, /--engine is a Socket\.IO option.*--ws-client/],
    [{ event: 'news' }, /--event is a Socket\.IO option.*--match/],
    [{ reconnectOnServerDisconnect: true }, /--reconnect-on-server-disconnect is a Socket\.IO option/],
    [{ transport: 'polling' }, /--transport polling is a Socket\.IO transport/],
    [{ transport: 'websocket:50,upgrade:50' }, /--transport upgrade is a Socket\.IO transport/],
    [{ wsClient: 'undici' }, /--ws-client must be one of ws, builtin/],
    [{ sendOnOpen: '{"op": {{nope}}}' }, /--send-on-open has an unknown placeholder \{\{nope\}\}/],
    [{ sendOnOpen: '{"op": }' }, /--send-on-open must be a JSON template/],
    [{ sendOnOpen: 'hi {{row.user}}' }, /--send-on-open uses \{\{row\.user\}\}, which needs a feeder/],
    [{ sendOnOpen: 'join {{room}}' }, /--send-on-open uses \{\{room\}\}, which needs --rooms/],
    [{ subprotocol: 'bad name' }, /--subprotocol must be a subprotocol name/],
    [{ subprotocol: ['a', 'a'] }, /--subprotocol names a subprotocol twice/],
    [{ match: 'type' }, /--match must be FIELD=VALUE/],
    [{ match: '=x' }, /--match must be FIELD=VALUE/],
    [{ match: 'a..b=x' }, /--match must be a dot path/]
  ]
  for (const [input, message] of cases) {
    assert.throws(() => normalizeSimOptions({ ...base, ...input }), (error) => {
      assert.equal(/** @type {any} */ (error).exitCode, 2, JSON.stringify(input))
      assert.match(/** @type {Error} */ (error).message, message, JSON.stringify(input))
      return true
    })
  }
  // Defaults of Socket.IO options are no reason to refuse.
  assert.doesNotThrow(() => normalizeSimOptions({ ...base, transport: 'websocket', reconnectOnServerDisconnect: false }))
})

test('plain WebSocket options are refused with --protocol socketio, naming the flag', () => {
  /** @type {[Record<string, unknown>, string][]} */
  const cases = [[{ sendOnOpen: 'x' }, '--send-on-open'], [{ subprotocol: 'a' }, '--subprotocol'], [{ match: 'a=b' }, '--match']]
  for (const [input, flag] of cases) {
    assert.throws(() => normalizeSimOptions({ url: 'http://h:1', ...input }), new RegExp(`${flag} works with --protocol websocket only`))
  }
})

test('the server a plain WebSocket result describes: no heartbeat, the default ramp said as such', () => {
  const info = webSocketServerInfo({ rampMs: null, subprotocols: ['chat'] })
  assert.equal(info.rampMs, DEFAULT_WEBSOCKET_RAMP_MS)
  assert.match(info.rampSource, /default for plain WebSocket/)
  assert.equal(info.pingIntervalMs, null)
  assert.equal(info.eio, null)
  assert.match(info.protocol, /plain WebSocket \(RFC 6455\), subprotocols offered: chat/)
  assert.deepEqual([webSocketServerInfo({ rampMs: 0 }).rampMs, webSocketServerInfo({ rampMs: 0 }).rampSource], [0, '--ramp'])
})
