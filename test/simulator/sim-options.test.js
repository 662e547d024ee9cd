import { test } from 'node:test'
import assert from 'node:assert/strict'
import { IoswarmError, EXIT } from '../../lib/errors.js'
import { normalizeSimOptions, parseWsClient } from '../../simulator/sim-options.js'

/**
 * @param {() => unknown} fn
 * @param {RegExp} message
 */
function assertUsageError (fn, message) {
  assert.throws(fn, (error) => error instanceof IoswarmError && error.exitCode === EXIT.USAGE && message.test(error.message), String(message))
}

test('--ws-client: builtin by default for the lean engine, ws on request, nothing for sio', () => {
  const url = ['http://127.0.0.1:3000']
  assert.equal(normalizeSimOptions({ url, engine: 'lean' }).wsClient, 'builtin')
  assert.equal(normalizeSimOptions({ url, engine: 'lean', wsClient: 'ws' }).wsClient, 'ws')
  assert.equal(normalizeSimOptions({ url, engine: 'lean', wsClient: 'builtin' }).wsClient, 'builtin')
  assert.equal(normalizeSimOptions({ url }).wsClient, null, 'sio (the default engine) has its own WebSocket')
  assert.equal(normalizeSimOptions({ url, engine: 'lean', wsClient: 'builtin' }).wsClient, parseWsClient(undefined, 'lean'))
  // Either client speaks TLS: https:// takes both.
  assert.equal(normalizeSimOptions({ url: ['https://127.0.0.1:3000'], engine: 'lean' }).wsClient, 'builtin')
  assert.equal(normalizeSimOptions({ url: ['https://127.0.0.1:3000'], engine: 'lean', wsClient: 'ws' }).wsClient, 'ws')
  assert.equal(normalizeSimOptions({ url: ['http://127.0.0.1:3000', 'https://127.0.0.2:3000'], engine: 'lean', wsClient: 'builtin' }).wsClient, 'builtin')
})

test('--ws-client: bad values and another engine are usage errors naming the flag', () => {
  const url = ['http://127.0.0.1:3000']
  assertUsageError(() => normalizeSimOptions({ url, engine: 'lean', wsClient: 'undici' }), /^--ws-client must be one of ws, builtin, got "undici"$/)
  assertUsageError(() => normalizeSimOptions({ url, engine: 'lean', wsClient: '' }), /^--ws-client must be one of ws, builtin, got ""$/)
  assertUsageError(
    () => normalizeSimOptions({ url, wsClient: 'builtin' }),
    /^--ws-client works with --engine lean only; --engine sio uses socket\.io-client's own WebSocket/
  )
  assertUsageError(() => normalizeSimOptions({ url, engine: 'sio', wsClient: 'ws' }), /^--ws-client works with --engine lean only/)
})

test('--http-client: builtin by default on http://, undici on https:// and on request; ' +
  'bad values, another engine, builtin on https:// are usage errors', () => {
  const url = ['http://127.0.0.1:3000']
  assert.equal(normalizeSimOptions({ url, engine: 'lean' }).httpClient, 'builtin')
  assert.equal(normalizeSimOptions({ url, engine: 'lean', httpClient: 'undici' }).httpClient, 'undici')
  assert.equal(normalizeSimOptions({ url: ['https://127.0.0.1:3000'], engine: 'lean' }).httpClient, 'undici')
  assert.equal(normalizeSimOptions({ url }).httpClient, null, 'sio (the default engine) has its own')
  assertUsageError(() => normalizeSimOptions({ url, engine: 'lean', httpClient: 'ws' }), /^--http-client must be one of builtin, undici, got "ws"$/)
  assertUsageError(() => normalizeSimOptions({ url, httpClient: 'builtin' }), /^--http-client works with --engine lean only/)
  assertUsageError(
    () => normalizeSimOptions({ url: ['https://127.0.0.1:3000'], engine: 'lean', httpClient: 'builtin' }),
    /^--http-client builtin speaks http:\/\/ only \(no TLS\).*use --http-client undici$/
  )
})

test('--reconnect-spread: a duration of at least 100ms, passed on under reconnectSpreadMs', () => {
  const base = { url: 'http://127.0.0.1:3000' }
  assert.equal(normalizeSimOptions({ ...base, reconnectSpread: '10s' }).reconnectSpreadMs, 10000)
  assert.equal(normalizeSimOptions(base).reconnectSpreadMs, null)
  for (const bad of ['50ms', 'soon']) {
    assert.throws(
      () => normalizeSimOptions({ ...base, reconnectSpread: bad }),
      (e) => e instanceof IoswarmError && e.exitCode === EXIT.USAGE && /--reconnect-spread/.test(e.message)
    )
  }
})
