/**
 * The built-in HTTP/1.1 client connection (simulator/wire/http-socket.js) of lean polling:
 * every way a response can be cut between reads (fed directly), then real sockets: keep-alive
 * reuse over Content-Length, chunked and multi-byte bodies, a server that closes, a reused
 * connection lost before its answer (retry), bodies over the limit, and a socket.io server's
 * 400 "Session ID unknown".
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import net from 'node:net'
import { once } from 'node:events'
import { FAILURE, HttpSocket, PHASE, readResponse } from '../../../simulator/wire/http-socket.js'
import { waitFor } from '../../helpers/wait.js'
import { startIoServer } from '../../helpers/io-server.js'

/**
 * A handler that records what a connection tells it.
 * @returns {import('../../../simulator/wire/http-socket.js').HttpHandler & { heads: number[], bodies: string[], failures: { detail: string, retry: boolean }[] }}
 */
function recorder () {
  return {
    heads: [],
    bodies: [],
    failures: [],
    head (conn, status) { this.heads.push(status) },
    done (conn, status, body) { this.bodies.push(body) },
    failed (conn, detail, retry) { this.failures.push({ detail, retry }) }
  }
}

const CHUNKED = 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Type: text/plain\r\n\r\n' +
  '5;ext=1\r\nhello\r\n8\r\n, wörld\r\n0\r\nX-Trailer: yes\r\n\r\n'
const LENGTH = `HTTP/1.1 200 OK\r\ncontent-length: ${Buffer.byteLength('4{"a":"é"}\x1e42["news",1]')}\r\n` +
  'Connection: keep-alive\r\n\r\n4{"a":"é"}\x1e42["news",1]'

for (const [name, text, body] of /** @type {const} */ ([['Content-Length', LENGTH, '4{"a":"é"}\x1e42["news",1]'], ['chunked', CHUNKED, 'hello, wörld']])) {
  test(`${name}: the same body however the response is cut between two and three reads (the read buffer reused)`, () => {
    const bytes = Buffer.from(text)
    const shared = Buffer.alloc(bytes.length)
    /** @param {HttpSocket} conn @param {Buffer} part */
    const feed = (conn, part) => {
      part.copy(shared)
      readResponse(conn, shared, 0, part.length)
      shared.fill(0x78) // what a later read would leave there
    }
    for (let cut = 1; cut < bytes.length; cut++) {
      for (const second of [cut, Math.min(bytes.length - 1, cut + 3)]) {
        const handler = recorder()
        const conn = new HttpSocket(handler, 1 << 20)
        conn.phase = PHASE.HEAD
        feed(conn, bytes.subarray(0, cut))
        if (second > cut) feed(conn, bytes.subarray(cut, second))
        feed(conn, bytes.subarray(second))
        assert.deepEqual(handler.failures, [], `cut at ${cut}, ${second}`)
        assert.deepEqual(handler.bodies, [body], `cut at ${cut}, ${second}`)
        assert.equal(conn.phase, PHASE.IDLE)
        conn.destroy()
      }
    }
  })
}

test('malformed answers fail the request: a bad status line, a bad chunk size, two Content-Lengths', () => {
  const answers = ['HTTP/2 200 OK\r\n\r\n', 'HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    'HTTP/1.1 200 OK\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\nab']
  for (const text of answers) {
    const handler = recorder()
    const conn = new HttpSocket(handler, 1 << 20)
    conn.phase = PHASE.HEAD
    const bytes = Buffer.from(text)
    readResponse(conn, bytes, 0, bytes.length)
    assert.deepEqual(handler.failures, [{ detail: FAILURE.PROTOCOL, retry: false }], JSON.stringify(text))
    assert.deepEqual(handler.bodies, [])
  }
})

/**
 * A raw server that answers each request with the next of `answers` (a function of the
 * connection's request count may also close the socket instead).
 * @param {import('node:test').TestContext} t
 * @param {(request: string, nth: number, socket: net.Socket) => void} answer nth: the request's number on its connection (1…)
 */
async function rawServer (t, answer) {
  const seen = { connections: 0, requests: /** @type {string[]} */ ([]) }
  /** @type {Set<net.Socket>} */
  const sockets = new Set()
  const server = net.createServer((socket) => {
    seen.connections++
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    let nth = 0
    let pending = ''
    socket.on('error', () => {})
    socket.on('data', (data) => {
      pending += data.toString('latin1')
      for (let end = pending.indexOf('\r\n\r\n'); end !== -1; end = pending.indexOf('\r\n\r\n')) {
        const head = pending.slice(0, end)
        const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0)
        if (pending.length < end + 4 + length) return
        const request = pending.slice(0, end + 4 + length)
        pending = pending.slice(end + 4 + length)
        seen.requests.push(request)
        answer(request, ++nth, socket)
      }
    })
  })
  server.listen(0, '127.0.0.1')
  await once(server, 'listening')
  t.after(() => new Promise((resolve) => {
    server.close(resolve)
    for (const socket of sockets) socket.destroy()
  }))
  const { port } = /** @type {net.AddressInfo} */ (server.address())
  return { port, seen }
}

/**
 * A connection to `port`, and a request on it that resolves with what the handler heard.
 * @param {number} port
 * @param {number} [limit]
 */
function connection (port, limit = 1 << 20) {
  const handler = recorder()
  const conn = new HttpSocket(handler, limit)
  conn.connect(port, '127.0.0.1')
  /** @param {string} path */
  const request = async (path) => {
    const before = handler.bodies.length + handler.failures.length
    conn.send(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`)
    await waitFor(() => handler.bodies.length + handler.failures.length > before, { message: `an answer to ${path}` })
  }
  return { conn, handler, request }
}

test('keep-alive: Content-Length, chunked (written a byte at a time) and multi-byte bodies over one connection', async (t) => {
  const { port, seen } = await rawServer(t, (request, nth, socket) => {
    if (nth === 1) socket.write(LENGTH)
    else if (nth === 2) {
      // One byte per write, each on a later turn: the client sees the answer in many reads.
      const bytes = Buffer.from(CHUNKED)
      let k = 0
      const next = () => { if (k < bytes.length && !socket.destroyed) { socket.write(bytes.subarray(k, ++k)); setImmediate(next) } }
      next()
    } else socket.write(`HTTP/1.1 200 OK\r\nContent-Length: ${Buffer.byteLength('✓ third')}\r\n\r\n✓ third`)
  })
  const { conn, handler, request } = connection(port)
  t.after(() => conn.destroy())
  for (const path of ['/1', '/2', '/3']) {
    await request(path)
    assert.ok(conn.ready, `ready after ${path}`)
  }
  assert.deepEqual(handler.failures, [])
  assert.deepEqual(handler.bodies, ['4{"a":"é"}\x1e42["news",1]', 'hello, wörld', '✓ third'])
  assert.deepEqual(handler.heads, [200, 200, 200])
  assert.equal(seen.connections, 1, 'one connection for the three requests')
})

test('a server that closes: after Connection: close, with a body that lasts until the close, ' +
  'in the middle of a body, and a reused connection lost before its answer (retry)', async (t) => {
  const { port } = await rawServer(t, (request, nth, socket) => {
    const path = request.split(' ')[1]
    if (path === '/close') socket.end('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nok')
    else if (path === '/until-close') socket.end('HTTP/1.1 200 OK\r\n\r\nall of it')
    else if (path === '/cut') socket.end('HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc')
    else if (nth === 1) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfirst')
    else socket.destroy() // the keep-alive timeout meeting the second request
  })
  {
    const { conn, handler, request } = connection(port)
    await request('/close')
    assert.deepEqual(handler.bodies, ['ok'])
    assert.equal(conn.ready, false, 'not reused after Connection: close')
    conn.destroy()
  }
  {
    const { conn, handler, request } = connection(port)
    await request('/until-close')
    assert.deepEqual(handler.bodies, ['all of it'])
    assert.deepEqual(handler.failures, [])
    conn.destroy()
  }
  {
    const { conn, handler, request } = connection(port)
    await request('/cut')
    assert.deepEqual(handler.bodies, [])
    assert.deepEqual(handler.failures, [{ detail: FAILURE.CLOSED, retry: false }], 'cut in its body: failed, not to be sent again')
    conn.destroy()
  }
  {
    const { conn, handler, request } = connection(port)
    await request('/keep')
    assert.deepEqual(handler.bodies, ['first'])
    await request('/keep')
    assert.equal(handler.failures.length, 1)
    assert.equal(handler.failures[0].retry, true, 'lost before any answer on a reused connection: safe to send again')
    conn.destroy()
  }
})

test('bodies over the limit fail as too large, by Content-Length and as chunks arrive', async (t) => {
  const { port } = await rawServer(t, (request, nth, socket) => {
    if (request.startsWith('GET /length')) socket.write('HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n')
    else socket.write('HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n8\r\n12345678\r\n8\r\n12345678\r\n0\r\n\r\n')
  })
  for (const path of ['/length', '/chunked']) {
    const { conn, handler, request } = connection(port, 10)
    await request(path)
    assert.deepEqual(handler.failures, [{ detail: FAILURE.TOO_LARGE, retry: false }], path)
    conn.destroy()
  }
})

test('a socket.io server: the handshake answer, then 400 "Session ID unknown" for a sid it never gave, on the same connection', async (t) => {
  const { port } = await startIoServer(t)
  const { conn, handler, request } = connection(port)
  t.after(() => conn.destroy())
  await request('/socket.io/?EIO=4&transport=polling&t=1')
  assert.match(handler.bodies[0], /^0\{"sid":/)
  await request('/socket.io/?EIO=4&transport=polling&sid=nobody&t=2')
  assert.deepEqual(handler.heads, [200, 400])
  assert.match(handler.bodies[1], /Session ID unknown/)
  assert.ok(conn.ready, 'a 400 with its body read leaves the connection usable')
})
