/**
 * Test fixture: a real socket.io server on a loopback port the system picks (listen on 0, read
 * the port back), closed after the test. The test adds its own handlers to `io`; nothing
 * connects before the test hands `url` to a client, so handlers added after this resolves see
 * every connection.
 *
 *   const { io, url } = await startIoServer(t, { pingInterval: 1000, pingTimeout: 2000 })
 *   io.on('connection', (socket) => socket.emit('hello'))
 */
import http from 'node:http'
import https from 'node:https'
import { once } from 'node:events'
import { Server } from 'socket.io'

/**
 * Starts a socket.io server on 127.0.0.1 and closes it (and every open connection) after the test.
 * @param {import('node:test').TestContext} t
 * @param {Partial<import('socket.io').ServerOptions>} [ioOptions] socket.io's own options (pingInterval, path, ...)
 * @param {{ port?: number, server?: http.Server | https.Server }} [where] port: 0 (default) for any free port, or a port a
 *   test just closed to restart a server in place; server: an HTTP(S) server of the test's own (a request handler, TLS)
 * @returns {Promise<{ io: Server, httpServer: http.Server | https.Server, port: number, url: string, close: () => Promise<void> }>}
 */
export async function startIoServer (t, ioOptions = {}, { port = 0, server = http.createServer() } = {}) {
  const io = new Server(server, ioOptions)
  server.listen(port, '127.0.0.1')
  await once(server, 'listening')
  const address = /** @type {import('node:net').AddressInfo} */ (server.address())
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    await new Promise((resolve) => io.close(() => resolve(undefined)))
    server.closeAllConnections()
  }
  t.after(close)
  const scheme = server instanceof https.Server ? 'https' : 'http'
  return { io, httpServer: server, port: address.port, url: `${scheme}://127.0.0.1:${address.port}`, close }
}
