/**
 * The built-in client's reading of an event stream's answer (simulator/engines/sse/stream-socket.js):
 * its head and its body framed by chunked encoding, by Content-Length or by the connection's end,
 * each cut at every byte between two reads; then the same client against real servers: Node's
 * http (chunked) and a raw TCP server answering as HTTP/1.0 servers do (the connection's end).
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import { readAnswer } from '../../../../simulator/engines/sse/stream-socket.js'
import { sseEngine } from '../../../../simulator/engines/sse.js'
import { recorder } from '../lean/helpers.js'
import { waitFor } from '../../../helpers/wait.js'

/** What the reader told its owner, read from `reads` one after another. */
function readAll (/** @type {Buffer[]} */ reads) {
  const told = { head: /** @type {unknown[]} */ ([]), body: '', ended: /** @type {string[]} */ ([]) }
  const s = {
    phase: 0,
    partial: null,
    remaining: 0,
    over: false,
    owner: {
      nodeHeader: null,
      head: (/** @type {unknown} */ _s, /** @type {number} */ status, /** @type {string} */ type, /** @type {string[]} */ cookies) => {
        told.head.push([status, type, cookies])
        return status === 200
      },
      data: (/** @type {unknown} */ _s, /** @type {Buffer} */ data) => { told.body += data.toString('latin1') },
      ended: (/** @type {unknown} */ _s, /** @type {string} */ reason) => { told.ended.push(reason) }
    },
    finish (/** @type {string} */ reason) {
      this.phase = 6
      if (!this.over) {
        this.over = true
        this.owner.ended(this, reason)
      }
    }
  }
  for (const read of reads) if (s.phase !== 6) readAnswer(/** @type {any} */ (s), read, 0, read.length)
  return told
}

const HEAD = 'HTTP/1.1 200 OK\r\nContent-Type: text/event-stream; charset=utf-8\r\nSet-Cookie: a=1; Path=/\r\nset-cookie: b=2\r\n'
const BODY = 'id: 1\ndata: {"id":"x"}\n\n: comment\ndata: é\n\n'

/** The body in chunks of 7 bytes, with a chunk extension on one, then the last chunk. */
function chunked (/** @type {string} */ body) {
  const bytes = Buffer.from(body, 'latin1')
  let out = ''
  for (let k = 0; k < bytes.length; k += 7) {
    const piece = bytes.subarray(k, k + 7)
    out += `${piece.length.toString(16)}${k === 7 ? ';ext=1' : ''}\r\n${piece.toString('latin1')}\r\n`
  }
  return `${out}0\r\n\r\n`
}

const CASES = [
  { label: 'chunked', answer: `${HEAD}Transfer-Encoding: chunked\r\n\r\n${chunked(BODY)}`, ended: ['stream ended by the server'] },
  { label: 'Content-Length', answer: `${HEAD}Content-Length: ${Buffer.byteLength(BODY, 'latin1')}\r\n\r\n${BODY}`, ended: ['stream ended by the server'] },
  // Framed by the connection's end: the stream goes on until the socket closes (told by the socket, not the reader).
  { label: 'the connection\'s end', answer: `${HEAD}\r\n${BODY}`, ended: [] }
]

for (const { label, answer, ended } of CASES) {
  test(`framed by ${label}: the same head and body wherever the reads are cut`, () => {
    const bytes = Buffer.from(answer, 'latin1')
    const whole = readAll([bytes])
    assert.deepEqual(whole, { head: [[200, 'text/event-stream', ['a=1; Path=/', 'b=2']]], body: BODY, ended })
    for (let cut = 1; cut < bytes.length; cut++) {
      assert.deepEqual(readAll([bytes.subarray(0, cut), bytes.subarray(cut)]), whole, `cut at byte ${cut}`)
    }
    assert.deepEqual(readAll([...bytes].map((b) => Buffer.from([b]))), whole, 'one byte a read')
  })
}

test('a refused head stops the reading: no body is handed on', () => {
  const told = readAll([Buffer.from('HTTP/1.1 404 Not Found\r\nContent-Type: text/html\r\nContent-Length: 5\r\n\r\nnope!')])
  assert.deepEqual(told, { head: [[404, 'text/html', []]], body: '', ended: [] })
})

test('bad chunked encoding and an answer that is no HTTP end the stream with the reason', () => {
  assert.deepEqual(readAll([Buffer.from(`${HEAD}Transfer-Encoding: chunked\r\n\r\nzz\r\n`)]).ended, ['bad chunked encoding'])
  assert.deepEqual(readAll([Buffer.from('SSH-2.0-OpenSSH\r\n\r\n')]).ended, ['not an HTTP answer'])
})

test('against a raw TCP server answering as HTTP/1.0 does (no length, no chunks): events, then the end of the stream', async (t) => {
  /** @type {string[]} */
  const requests = []
  const server = net.createServer((socket) => {
    let request = ''
    socket.on('data', (data) => {
      request += data.toString('latin1')
      if (!request.endsWith('\r\n\r\n')) return
      requests.push(request)
      socket.write('HTTP/1.0 200 OK\r\nContent-Type: text/event-stream\r\n\r\n')
      socket.end(requests.length === 1 ? 'retry: 10\nid: 3\ndata: one\n\n' : 'data: two\n\n')
    })
  })
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => new Promise((resolve) => server.close(() => resolve(undefined))))
  const { log, events } = recorder()
  const url = `http://127.0.0.1:${/** @type {net.AddressInfo} */ (server.address()).port}/live?x=1`
  /** @type {import('../../../../simulator/engines/sse/config.js').SseOptions} */
  const options = { url, path: '/', namespace: '/', events: ['message'], keepAlive: false, reconnect: true, heartbeatTickMs: 20 }
  const pool = sseEngine.createPool(options, events)
  t.after(() => pool.close())
  pool.connect(0, 'websocket')
  // The server answers every later stream with 'two' and ends it; retry: 10 brings the client
  // back every 10 ms, so more copies may come before the wait looks: the first two are checked.
  await waitFor(() => log.messages.length >= 2, { message: 'an event on each of two streams' })
  assert.deepEqual(log.messages.slice(0, 2).map((m) => m.args[0]), ['one', 'two'])
  assert.equal(log.disconnects[0].reason, 'stream ended by the server')
  const [first, second] = requests
  assert.match(first, /^GET \/live\?x=1 HTTP\/1\.1\r\nHost: 127\.0\.0\.1:\d+\r\nAccept: text\/event-stream\r\nCache-Control: no-cache\r\n\r\n$/)
  assert.match(second, /\r\nLast-Event-ID: 3\r\n/)
})
