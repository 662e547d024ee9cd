/**
 * `--protocol sse`: the URL taken whole as the stream, --event naming the event stream's types
 * (default "message"), what makes no sense for a subscriber refused by name, and bad streams
 * (a 404, a page, a refusal every client would meet) stopped by the look before the swarm.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import http from 'node:http'
import https from 'node:https'
import { readFileSync } from 'node:fs'
import { normalizeSimOptions } from '../../simulator/sim-options.js'
import { inspectServer } from '../../simulator/inspection/inspect.js'
import { normalizeRunOptions } from '../../runner/run-options.js'
import { normalizeServeOptions } from '../../server/server-options.js'
import { makeCertificate } from '../helpers/https-server.js'

test('--protocol sse: the URL is the stream, path and query included; events default to message; --event names others', () => {
  const o = normalizeSimOptions({ protocol: 'sse', url: 'http://127.0.0.1:8080/sub/news?x=1' })
  const url = 'http://127.0.0.1:8080/sub/news?x=1'
  assert.deepEqual([o.protocol, o.engine, o.url, o.events, o.wsClient, o.httpClient], ['sse', 'sse', url, ['message'], null, null])
  assert.deepEqual(o.query, {})
  assert.deepEqual(normalizeSimOptions({ protocol: 'sse', url: 'https://h:1/s', event: ['score', 'goal'] }).events, ['score', 'goal'])
  assert.deepEqual(normalizeSimOptions({ protocol: 'sse', url: 'https://h:1/s', event: '*' }).events, ['*'])
})

test('options that mean nothing to an event stream subscriber are refused, naming the flag and what to use', () => {
  /** @type {[Record<string, unknown>, RegExp][]} */
  const cases = [
    [{ namespace: '/chat' }, /--namespace is not for --protocol sse \(Server-Sent Events\): an event stream has no namespaces/],
    [{ auth: '{"t":1}' }, /--auth is not for --protocol sse.*--header, --query or --cookie/],
    [{ engine: 'lean' }, /--engine is not for --protocol sse/],
    [{ wsClient: 'builtin' }, /--ws-client is not for --protocol sse/],
    [{ httpClient: 'undici' }, /--http-client is not for --protocol sse.*built-in client \(https:\/\/ too\)/],
    [{ match: 'type=x' }, /--match is not for --protocol sse.*--event NAME/],
    [{ sendOnOpen: 'hi' }, /--send-on-open is not for --protocol sse/],
    [{ subprotocol: 'a' }, /--subprotocol is not for --protocol sse/],
    [{ emit: 'chat {}' }, /--emit is not for --protocol sse.*--publish/],
    [{ join: 'join {}' }, /--join is not for --protocol sse/],
    [{ reconnectOnServerDisconnect: true }, /--reconnect-on-server-disconnect is not for --protocol sse/],
    [{ transport: 'polling' }, /--transport polling is a Socket\.IO transport: --protocol sse reads one event stream per client/]
  ]
  for (const [input, message] of cases) {
    assert.throws(() => normalizeSimOptions({ protocol: 'sse', url: 'http://h:1/s', ...input }), (error) => {
      assert.equal(/** @type {import('../../lib/errors.js').IoswarmError} */ (error).exitCode, 2)
      assert.match(/** @type {Error} */ (error).message, message)
      return true
    }, JSON.stringify(input))
  }
})

test('run --protocol sse needs --target and --publish (no reference server); serve --protocol sse is refused', () => {
  assert.throws(() => normalizeRunOptions({ protocol: 'sse', rounds: '1x100' }), /--protocol sse has no reference server.*--target.*--publish/)
  assert.throws(() => normalizeRunOptions({ protocol: 'sse', target: 'http://h:1/s', token: 't', rounds: '1x100' }), /--protocol sse has no reference server/)
  const ok = normalizeRunOptions({ protocol: 'sse', target: 'http://h:1/s', publish: 'POST http://h:1/pub', rounds: '1x100' })
  assert.deepEqual([ok.protocol, ok.event], ['sse', 'message'])
  assert.equal(normalizeRunOptions({ protocol: 'sse', target: 'http://h:1/s', rounds: 'none', hold: '1m' }).protocol, 'sse', 'subscribers only')
  assert.throws(() => normalizeServeOptions({ protocol: 'sse' }), /--protocol sse is a subscriber protocol of simulate and run/)
})

/**
 * A server on loopback port 0 answering every request with `handle`, closed after the test.
 * @param {import('node:test').TestContext} t
 * @param {http.RequestListener} handle
 */
async function listen (t, handle) {
  const server = http.createServer(handle)
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve(undefined)) }))
  return `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}`
}

test('the look before the swarm: a 404, a page and a refusal of everyone\'s identity stop with exit 2; a stream passes', async (t) => {
  const url = await listen(t, (req, res) => {
    if (req.url === '/events') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream' })
      res.write(': open\n\n')
    } else if (req.url === '/page') res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' }).end('<p>hi</p>')
    else if (req.url === '/private') res.writeHead(req.headers.authorization === 'Bearer ok' ? 200 : 401, { 'Content-Type': 'text/event-stream' }).end()
    else res.writeHead(404).end()
  })
  /** @type {[string, Record<string, unknown>, RegExp][]} */
  const cases = [
    ['/nothing', {}, /\/nothing answered HTTP 404: no event stream at that path: nothing was started; check --url/],
    ['/page', {}, /\/page answered 200 with content type text\/html, not text\/event-stream: it is no Server-Sent Events stream/],
    ['/private', { header: 'Authorization: Bearer no' }, /\/private answered HTTP 401 to the first client: every client sends this same identity/]
  ]
  for (const [path, extra, message] of cases) {
    await assert.rejects(inspectServer(normalizeSimOptions({ protocol: 'sse', url: `${url}${path}`, ...extra })), (error) => {
      assert.equal(/** @type {import('../../lib/errors.js').IoswarmError} */ (error).exitCode, 2)
      assert.match(/** @type {Error} */ (error).message, message)
      return true
    }, path)
  }
  const info = await inspectServer(normalizeSimOptions({ protocol: 'sse', url: `${url}/events`, ramp: '2s' }))
  assert.deepEqual([info.protocol, info.rampMs, info.handshakeError], ['Server-Sent Events (text/event-stream)', 2000, null])
  const ok = await inspectServer(normalizeSimOptions({ protocol: 'sse', url: `${url}/private`, header: 'Authorization: Bearer ok' }))
  assert.equal(ok.handshakeError, null, 'the first client\'s --header went with the look')
})

test('the look over https: a certificate no client trusts stops with the fix named; --ca makes it pass', async (t) => {
  const files = makeCertificate(t)
  if (!files) return
  const server = https.createServer({ cert: readFileSync(files.cert), key: readFileSync(files.key) }, (req, res) => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream' })
    res.write(': open\n\n')
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve(undefined)) }))
  const url = `https://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (server.address()).port}/events`
  await assert.rejects(inspectServer(normalizeSimOptions({ protocol: 'sse', url })), (error) => {
    assert.equal(/** @type {import('../../lib/errors.js').IoswarmError} */ (error).exitCode, 2)
    assert.match(/** @type {Error} */ (error).message, /failed TLS: DEPTH_ZERO_SELF_SIGNED_CERT: .*--ca FILE.*--insecure/)
    return true
  })
  const info = await inspectServer(normalizeSimOptions({ protocol: 'sse', url, ca: files.cert }))
  assert.equal(info.handshakeError, null)
})
