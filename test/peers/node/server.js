/**
 * A socket.io server of a pinned version (2, 3 or 4, from test/peers/node_modules), for
 * ioswarm's interop tests. Configured by environment: SIO_VERSION (2|3|4), PARSER (json|msgpack),
 * SIO_PATH, NAMESPACES (comma-separated), ALLOW_EIO3 (1), PING_INTERVAL_MS. Listens on
 * 127.0.0.1:0, prints {"port": N} once listening; POST /emit?count=N&event=E broadcasts
 * {id, sentAt} on every namespace; GET /count answers the clients the server counts.
 */
import http from 'node:http'

const version = process.env.SIO_VERSION ?? '4'
const namespaces = (process.env.NAMESPACES ?? '/').split(',').filter(Boolean)
const pingInterval = Number(process.env.PING_INTERVAL_MS ?? 25000)
const options = {
  path: process.env.SIO_PATH ?? '/socket.io',
  pingInterval,
  pingTimeout: Math.min(20000, pingInterval),
  cors: { origin: '*' },
  ...(process.env.ALLOW_EIO3 === '1' ? { allowEIO3: true } : {}),
  ...(process.env.PARSER === 'msgpack' ? { parser: (await import('socket.io-msgpack-parser')).default } : {})
}

const server = http.createServer()
const io = version === '2'
  ? (await import('socket.io-v2')).default(server, options)
  : new (await import(`socket.io-v${version}`)).Server(server, options)
for (const ns of namespaces) io.of(ns).on('connection', () => {})

/** @param {string} ns */
const countOf = (ns) => {
  const sockets = io.of(ns).sockets
  return sockets instanceof Map ? sockets.size : Object.keys(sockets).length
}

let sent = 0
server.on('request', (req, res) => {
  const url = new URL(req.url ?? '/', 'http://x')
  if (url.pathname === '/emit' && req.method === 'POST') {
    const count = Number(url.searchParams.get('count') ?? 1)
    const event = url.searchParams.get('event') ?? 'news'
    for (let n = 0; n < count; n++) {
      sent++
      for (const ns of namespaces) io.of(ns).emit(event, { id: `v${version}-${sent}`, sentAt: Date.now() })
    }
    res.end(JSON.stringify({ sent: count }))
  } else if (url.pathname === '/count') {
    res.end(JSON.stringify({ connected: namespaces.reduce((total, ns) => total + countOf(ns), 0), byNamespace: Object.fromEntries(namespaces.map((ns) => [ns, countOf(ns)])) }))
  } else if (!url.pathname.startsWith(options.path)) {
    res.statusCode = 404
    res.end('not found')
  }
})
server.listen(0, '127.0.0.1', () => {
  process.stdout.write(`${JSON.stringify({ port: /** @type {import('node:net').AddressInfo} */ (server.address()).port })}\n`)
})
const stop = () => { io.close(); server.close(() => process.exit(0)); setTimeout(() => process.exit(0), 2000).unref() }
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
