/**
 * Test fixture: a small socket.io 4 server that answers the reference server's POST
 * /broadcast and degrades at a known number of connected clients, for capacity tests:
 *
 * - 'delay': past `limit` clients, each broadcast reaches a random half of them `delayMs` late;
 * - 'drop': past `limit` clients, each broadcast reaches only the first `limit` of them.
 *
 * At `limit` clients or fewer every broadcast goes to everyone at once (io.emit).
 */
import http from 'node:http'
import { once } from 'node:events'
import { Server } from 'socket.io'

/**
 * @param {import('node:test').TestContext} t
 * @param {{ limit: number, mode: 'delay' | 'drop', delayMs?: number, pingIntervalMs?: number, token?: string }} options
 * @returns {Promise<{ url: string, token: string, io: Server, broadcasts: number }>}
 */
export async function startDegradingServer (t, { limit, mode, delayMs = 400, pingIntervalMs = 1000, token = 'test-token' }) {
  const httpServer = http.createServer()
  const io = new Server(httpServer, { pingInterval: pingIntervalMs, pingTimeout: 20000 })
  const state = { url: '', token, io, broadcasts: 0 }
  httpServer.on('request', (req, res) => {
    if (req.url?.startsWith('/socket.io/')) return // socket.io's own
    if (req.method !== 'POST' || req.url !== '/broadcast') return reply(res, 404, { error: 'not found' })
    if (req.headers.authorization !== `Bearer ${token}`) return reply(res, 401, { error: 'unauthorized' })
    let text = ''
    req.setEncoding('utf8').on('data', (d) => { text += d }).on('end', () => {
      const body = JSON.parse(text || '{}')
      const id = `${body.round}.${body.seq}`
      const sentAt = Date.now()
      const message = { id, batch: body.batch, round: body.round, seq: body.seq, sentAt, payload: '' }
      const sockets = [...io.of('/').sockets.values()]
      emit(sockets, body.event ?? 'broadcast', message)
      state.broadcasts++
      reply(res, 200, { messages: [{ id, event: body.event, sentAt, recipients: sockets.length }] })
    })
  })

  /**
   * @param {import('socket.io').Socket[]} sockets
   * @param {string} event
   * @param {Record<string, unknown>} message
   */
  function emit (sockets, event, message) {
    if (sockets.length <= limit) return io.emit(event, message)
    if (mode === 'drop') {
      for (const s of sockets.slice(0, limit)) s.emit(event, message)
      return
    }
    // A random half late, drawn again for each broadcast: relative delays are measured from the
    // first receipt in each simulator, so each simulator must hold early and late clients. A
    // split by connect order can put all of one simulator's clients on one side (two simulators
    // whose connects alternate, one on the even places and one on the odd, measured 0 ms).
    const late = sockets.map(() => Math.random() < 0.5)
    for (const [k, s] of sockets.entries()) if (!late[k]) s.emit(event, message)
    setTimeout(() => { for (const [k, s] of sockets.entries()) if (late[k]) s.emit(event, message) }, delayMs)
  }

  httpServer.listen(0, '127.0.0.1')
  await once(httpServer, 'listening')
  state.url = `http://127.0.0.1:${/** @type {import('node:net').AddressInfo} */ (httpServer.address()).port}`
  t.after(async () => {
    io.close()
    httpServer.closeAllConnections()
    if (httpServer.listening) await new Promise((resolve) => httpServer.close(resolve))
  })
  return state
}

/**
 * @param {import('node:http').ServerResponse} res
 * @param {number} status
 * @param {unknown} body
 */
function reply (res, status, body) {
  res.writeHead(status, { 'content-type': 'application/json' })
  res.end(JSON.stringify(body))
}
