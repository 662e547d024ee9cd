import { test } from 'node:test'
import assert from 'node:assert/strict'
import { resolveLeanConfig } from '../../../../simulator/engines/lean/config.js'

const base = { url: 'http://127.0.0.1:3000', path: '/socket.io/', namespace: '/', events: ['broadcast'], keepAlive: true, reconnect: true }

test('builds paths once, with the trailing slash socket.io-client adds and the URL query kept', () => {
  const config = resolveLeanConfig({ ...base, url: 'https://[::1]:8443/?token=a%20b', path: '/io' })
  assert.equal(config.host, '::1')
  assert.equal(config.port, 8443)
  assert.equal(config.secure, true)
  assert.equal(config.pollBase, '/io/?EIO=4&transport=polling&token=a%20b')
  assert.equal(config.wsUrl, 'wss://[::1]:8443/io/?EIO=4&transport=websocket&token=a%20b')
  assert.deepEqual(config.wanted, new Set(['broadcast']))
  assert.equal(resolveLeanConfig({ ...base, events: ['*'] }).wanted, null)
  assert.equal(resolveLeanConfig({ ...base, url: 'http://h' }).port, 80)
})

test('defaults follow socket.io-client (the payload limit the simulator\'s), and bad values are refused with the option named', () => {
  const config = resolveLeanConfig(base)
  assert.equal(config.maxPayloadBytes, 1e6)
  assert.equal(config.connectTimeoutMs, 20000)
  assert.equal(config.perMessageDeflate, false)
  assert.deepEqual(config.backoff, { minMs: 1000, maxMs: 5000, jitter: 0.5 })
  assert.throws(() => resolveLeanConfig({ ...base, url: 'nope' }), /url must be an http/)
  assert.throws(() => resolveLeanConfig({ ...base, maxPayloadBytes: 0 }), /maxPayloadBytes must be a whole number of bytes from 1 to 268435456/)
  assert.throws(() => resolveLeanConfig({ ...base, maxPayloadBytes: 2 ** 31 }), /maxPayloadBytes must be a whole number/)
  assert.throws(() => resolveLeanConfig({ ...base, randomizationFactor: 2 }), /randomizationFactor must be a number from 0 to 1/)
})
