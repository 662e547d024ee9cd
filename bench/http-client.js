#!/usr/bin/env node
/**
 * CPU per HTTP request of the client libraries a polling client could use: node:http with a
 * keep-alive agent, undici's Pool.request, and undici's low-level dispatch (what the lean
 * engine's polling uses). The server runs in a child process, so only the client's CPU is
 * counted. Prints one JSON line per client and run.
 *
 *   node bench/http-client.js [--requests 20000] [--concurrency 50] [--runs 2]
 */
import { fork } from 'node:child_process'
import http from 'node:http'
import { once } from 'node:events'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'
import { Pool } from 'undici'
import { hostFacts } from '../lib/host.js'

const BODY = '42["broadcast",{"id":1,"payload":"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}]'
const PATH = '/socket.io/?EIO=4&transport=polling&sid=abc'

if (process.argv.includes('--child')) {
  const server = http.createServer((req, res) => { res.writeHead(200, { 'content-type': 'text/plain' }); res.end(BODY) })
  server.listen(0, '127.0.0.1', () => process.send?.(/** @type {import('node:net').AddressInfo} */ (server.address()).port))
} else {
  const { values } = parseArgs({
    options: { requests: { type: 'string', default: '20000' }, concurrency: { type: 'string', default: '50' }, runs: { type: 'string', default: '2' } }
  })
  const total = Number(values.requests)
  const concurrency = Number(values.concurrency)
  if (!(total > 0 && concurrency > 0 && Number(values.runs) > 0)) throw new Error('--requests, --concurrency and --runs must be positive')
  const child = fork(fileURLToPath(import.meta.url), ['--child'])
  const [port] = await once(child, 'message')
  const url = `http://127.0.0.1:${port}`
  try {
    for (let run = 1; run <= Number(values.runs); run++) {
      /** @type {[string, () => Promise<void>][]} */
      const clients = [
        ['node:http', () => viaHttp(url, total, concurrency)],
        ['undici Pool.request', () => viaRequest(url, total, concurrency)],
        ['undici dispatch', () => viaDispatch(url, total, concurrency)]
      ]
      for (const [name, fn] of clients) {
        const cpu0 = process.cpuUsage()
        const t0 = performance.now()
        await fn()
        const cpu = process.cpuUsage(cpu0)
        const cpuUsPerRequest = Math.round((cpu.user + cpu.system) / total * 10) / 10
        const wallMs = Math.round(performance.now() - t0)
        const row = { bench: 'http-client', client: name, run, requests: total, concurrency, cpuUsPerRequest, wallMs, host: hostFacts() }
        process.stdout.write(`${JSON.stringify(row)}\n`)
      }
    }
  } finally {
    child.kill()
  }
}

/**
 * Runs `total` requests, `concurrency` at a time; `one(done)` starts one and calls done at its end.
 * @param {number} total
 * @param {number} concurrency
 * @param {(done: () => void) => void} one
 */
function loop (total, concurrency, one) {
  let started = 0
  let finished = 0
  return new Promise((resolve) => {
    const next = () => {
      if (++finished === total) resolve(undefined)
      else if (started < total) { started++; one(next) }
    }
    for (; started < Math.min(concurrency, total); started++) one(next)
  })
}

/** @param {string} url @param {number} total @param {number} concurrency */
async function viaHttp (url, total, concurrency) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: concurrency })
  await loop(total, concurrency, (done) => {
    http.request(`${url}${PATH}`, { agent }, (res) => {
      /** @type {Buffer[]} */
      const chunks = []
      res.on('data', (d) => chunks.push(d)).on('end', () => { Buffer.concat(chunks).toString(); done() })
    }).end()
  })
  agent.destroy()
}

/** @param {string} url @param {number} total @param {number} concurrency */
async function viaRequest (url, total, concurrency) {
  const pool = new Pool(url, { connections: concurrency })
  await loop(total, concurrency, (done) => {
    pool.request({ path: PATH, method: 'GET' }).then(({ body }) => body.text()).then(done)
  })
  await pool.close()
}

/** @param {string} url @param {number} total @param {number} concurrency */
async function viaDispatch (url, total, concurrency) {
  const pool = new Pool(url, { connections: concurrency })
  await loop(total, concurrency, (done) => {
    /** @type {Buffer[]} */
    const chunks = []
    pool.dispatch({ path: PATH, method: 'GET' }, {
      onConnect () {},
      onHeaders () { return true },
      onData (chunk) { chunks.push(chunk); return true },
      onComplete () { Buffer.concat(chunks).toString(); done() },
      onError (error) { throw error }
    })
  })
  await pool.close()
}
