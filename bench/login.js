#!/usr/bin/env node
/**
 * Logins at scale: `--clients` lean WebSocket clients each logging in over HTTP
 * (--login 'POST /login {"user":"u{{i}}"}') and then connecting with the session cookie, over a
 * `--ramp`, against a local app in a child process (POST /login sets connect.sid and answers a
 * token; the Engine.IO middleware refuses a handshake without a live session, as socket.io's
 * Passport example does). The same swarm without --login, alternating, gives the simulator's
 * CPU per login: (CPU with − CPU without) ÷ logins. One JSON line per run: clients connected,
 * logins ok and failed, login time p50/p99/max, the simulator process's CPU (user + system)
 * over the whole swarm, the load average before and after.
 *
 *   nice node bench/login.js [--clients 5000] [--ramp 20s] [--runs 1]
 */
import { fork } from 'node:child_process'
import http from 'node:http'
import os from 'node:os'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { hostFacts } from '../lib/host.js'

if (process.argv[2] === '--serve') serve()
else await main()

/** The app: sessions in memory, a login that sets one, a socket.io server that wants one. */
async function serve () {
  const { Server } = await import('socket.io')
  /** @type {Set<string>} */
  const sessions = new Set()
  let n = 0
  const server = http.createServer((req, res) => {
    if (req.url?.startsWith('/socket.io')) return
    if (req.method !== 'POST' || req.url !== '/login') return res.writeHead(404).end()
    let text = ''
    req.on('data', (chunk) => { text += chunk })
    req.on('end', () => {
      const sid = `s${++n}.${JSON.parse(text).user}`
      sessions.add(sid)
      res.writeHead(200, { 'set-cookie': `connect.sid=${sid}; Path=/; HttpOnly`, 'content-type': 'application/json' })
      res.end(JSON.stringify({ token: `t-${sid}` }))
    })
  })
  const io = new Server(server, { pingInterval: 25000 })
  io.engine.use((/** @type {http.IncomingMessage} */ req, /** @type {http.ServerResponse} */ res, /** @type {() => void} */ next) => {
    if (process.env.LOGIN === '0') return next()
    const sid = /connect\.sid=([^;]+)/.exec(req.headers.cookie ?? '')?.[1]
    if (sid !== undefined && sessions.has(sid)) return next()
    res.writeHead(401)
    res.end()
  })
  server.listen(0, '127.0.0.1', () => process.send?.({ port: /** @type {import('node:net').AddressInfo} */ (server.address()).port }))
}

async function main () {
  const { values } = parseArgs({
    options: { clients: { type: 'string', default: '5000' }, ramp: { type: 'string', default: '20s' }, runs: { type: 'string', default: '1' } }
  })
  const { runSwarm } = await import('../simulator/swarm/swarm.js')
  for (let run = 1; run <= Number(values.runs); run++) {
    for (const login of [true, false]) {
      const app = fork(fileURLToPath(import.meta.url), ['--serve'], {
        env: { ...process.env, LOGIN: login ? '1' : '0' },
        stdio: ['ignore', 'inherit', 'inherit', 'ipc']
      })
      const { port } = await new Promise((resolve) => app.once('message', resolve))
      const loadBefore = os.loadavg()[0]
      const cpu = process.cpuUsage()
      const startedMs = performance.now()
      const rampMs = Number.parseFloat(values.ramp) * 1000
      const result = await runSwarm({
        url: `http://127.0.0.1:${port}`,
        clients: Number(values.clients),
        engine: 'lean',
        transport: 'websocket',
        ramp: values.ramp,
        // The ramp, then 5 s for the last ones to connect.
        duration: `${Math.round(rampMs / 1000) + 5}s`,
        ...(login ? { login: 'POST /login {"user":"u{{i}}"}', auth: '{"token":"{{login.token}}"}' } : {})
      })
      const used = process.cpuUsage(cpu)
      app.kill('SIGTERM')
      const logins = result.logins
      console.log(JSON.stringify({
        bench: 'login',
        run,
        login,
        clients: result.clients.target,
        connected: result.clients.connected,
        connectErrors: result.clients.errors,
        logins: logins ? { ok: logins.ok, failed: logins.failed, p50Ms: logins.time.p50, p99Ms: logins.time.p99, maxMs: logins.time.max } : null,
        simulatorCpuMs: Math.round((used.user + used.system) / 1000),
        wallMs: Math.round(performance.now() - startedMs),
        load: { before: Math.round(loadBefore * 10) / 10, after: Math.round(os.loadavg()[0] * 10) / 10 },
        host: hostFacts()
      }))
    }
  }
}
