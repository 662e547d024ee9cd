/**
 * The dashboard's HTTP server: the page, its scripts (served from the installed packages and
 * this repository's files: nothing from a network), the live stream as Server-Sent Events, a
 * JSON snapshot, and the steering actions (POST, with the token the printed URL carries).
 * Closing it ends every open page's stream at once: a run never waits for a page to close.
 */
import { createServer } from 'node:http'
import { timingSafeEqual } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { dashboardPage, PAGE_CSP, PAGE_STYLE } from './page.js'

/** A POST body larger than this is refused: an action's body is a few bytes. */
const MAX_BODY_BYTES = 4096
/** The routes of the steering actions and the action each asks for. */
export const ACTION_ROUTES = Object.freeze({
  '/api/stop': 'stop', '/api/clients': 'clients', '/api/emit-rate': 'emit-rate', '/api/stop-after-step': 'stop-after-step'
})

const here = dirname(fileURLToPath(import.meta.url))
/** Files the page loads, by URL path. */
const ASSETS = {
  '/assets/page.js': join(here, 'page-script.js'),
  '/assets/charts-live.js': join(here, '..', 'report', 'charts', 'charts-live.js'),
  '/assets/chart-config.js': join(here, '..', 'report', 'charts', 'chart-config.js'),
  '/assets/charts-shape.js': join(here, '..', 'report', 'charts', 'charts-shape.js'),
  '/assets/chart.js': chartLibraryFile()
}

/**
 * @typedef {{ actions(): string[], act(action: string, body: Record<string, unknown>, by: string):
 *   Promise<{ ok: true, event: Record<string, unknown> } | { ok: false, status: number, message: string }>, onEvent(cb: (event: any) => void): () => void }} Steering
 * @typedef {import('./stream.js').LiveStream} LiveStream
 */

/**
 * Serves a stream. Rejects when the port cannot be had.
 * @param {object} options
 * @param {LiveStream} options.stream
 * @param {string} options.token the actions' token
 * @param {number} [options.port] 0: a free one
 * @param {string} [options.host]
 * @param {Steering | null} [options.steering]
 * @param {string} [options.title]
 */
export async function startDashboardServer ({ stream, token, port = 0, host = '127.0.0.1', steering = null, title = 'ioswarm' }) {
  /** @type {Set<import('node:http').ServerResponse>} */
  const pages = new Set()
  /** @type {{ current: Steering | null }} */
  const steer = { current: steering }
  /** @type {Record<string, string>} */
  const cache = {}
  // One serialisation per event, written to every open page.
  const unsubscribe = stream.subscribe((_event, line) => {
    if (pages.size === 0) return
    const frame = `data: ${line}\n\n`
    for (const res of pages) res.write(frame)
  })
  const server = createServer((req, res) => {
    handle(req, res).catch((error) => send(res, 500, { error: error.message }))
  })
  /** @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res */
  const handle = async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://dashboard')
    const path = url.pathname
    if (req.method === 'GET' && path === '/') return sendText(res, 200, 'text/html; charset=utf-8', dashboardPage({ title }))
    if (req.method === 'GET' && path === '/assets/page.css') return sendText(res, 200, 'text/css; charset=utf-8', PAGE_STYLE)
    if (req.method === 'GET' && path in ASSETS) {
      cache[path] ??= await readFile(ASSETS[/** @type {keyof typeof ASSETS} */ (path)], 'utf8')
      return sendText(res, 200, 'text/javascript; charset=utf-8', cache[path])
    }
    if (req.method === 'GET' && path === '/favicon.ico') return sendText(res, 204, 'text/plain', '')
    if (req.method === 'GET' && path === '/events') return openStream(res)
    if (req.method === 'GET' && path === '/api/state') return send(res, 200, state())
    if (req.method === 'GET' && path === '/report') return sendReport(res)
    const action = ACTION_ROUTES[/** @type {keyof typeof ACTION_ROUTES} */ (path)]
    if (action && req.method === 'POST') return act(req, res, action, url)
    return send(res, path.startsWith('/api/') && action ? 405 : 404, { error: `${req.method} ${path}: no such route` })
  }
  /** @param {import('node:http').ServerResponse} res */
  const openStream = (res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store', connection: 'keep-alive' })
    res.write(`retry: 2000\n\n${stream.history().map((e) => `data: ${JSON.stringify(e)}\n\n`).join('')}`)
    pages.add(res)
    res.on('close', () => pages.delete(res))
  }
  const state = () => ({
    hello: stream.history()[0],
    last: stream.last(),
    ended: stream.ended,
    end: stream.eventsOf('end').at(-1) ?? null,
    actions: steer.current?.actions() ?? [],
    timeline: stream.eventsOf('action'),
    pages: pages.size
  })
  /** @param {import('node:http').ServerResponse} res */
  const sendReport = async (res) => {
    const report = stream.eventsOf('end').at(-1)?.report
    if (typeof report !== 'string') return send(res, 404, { error: 'no report yet: it is written when the run ends' })
    // The report carries its own policy (its scripts run by hash).
    return sendText(res, 200, 'text/html; charset=utf-8', await readFile(report, 'utf8'), null)
  }
  /**
   * @param {import('node:http').IncomingMessage} req @param {import('node:http').ServerResponse} res
   * @param {string} action @param {URL} url
   */
  const act = async (req, res, action, url) => {
    const body = await readBody(req)
    if (!tokenMatches(req, url, token)) {
      return send(res, 403, { error: 'the actions need the token of the dashboard URL the run printed (Authorization: Bearer T, or ?token=T)' })
    }
    if (body === undefined) return send(res, 400, { error: 'the body must be a JSON object of at most 4 KiB' })
    if (stream.ended) return send(res, 409, { error: 'the run is over' })
    const steering = steer.current
    if (!steering) return send(res, 409, { error: 'this run cannot be steered' })
    if (!steering.actions().includes(action)) {
      return send(res, 404, { error: `${action}: not an action of this command (it has: ${steering.actions().join(', ') || 'none'})` })
    }
    const done = await steering.act(action, body, 'api')
    return done.ok ? send(res, 200, { ok: true, event: done.event }) : send(res, done.status, { ok: false, error: done.message })
  }

  await new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => { server.off('error', reject); resolve(undefined) })
  })
  const address = /** @type {import('node:net').AddressInfo} */ (server.address())
  const shown = host.includes(':') ? `[${host}]` : host
  const base = `http://${shown === '0.0.0.0' || shown === '[::]' ? '127.0.0.1' : shown}:${address.port}/`
  return {
    port: address.port,
    /** The page's URL with the token (what the run prints). */
    url: `${base}?token=${encodeURIComponent(token)}`,
    /** The page's URL without the token: it shows, and cannot act. */
    viewUrl: base,
    /** @param {Steering | null} s the command's steering, once it has one */
    setSteering (s) { steer.current = s },
    /** Pages open now. */
    pages: () => pages.size,
    /** Ends every page's stream and stops serving, without waiting for a page to close. */
    async close () {
      unsubscribe()
      for (const res of pages) res.end()
      pages.clear()
      await new Promise((resolve) => { server.close(() => resolve(undefined)); server.closeAllConnections() })
    }
  }
}

/**
 * @param {import('node:http').IncomingMessage} req
 * @param {URL} url
 * @param {string} token
 */
function tokenMatches (req, url, token) {
  const header = String(req.headers.authorization ?? '')
  const given = header.startsWith('Bearer ') ? header.slice(7).trim() : url.searchParams.get('token') ?? ''
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}

/**
 * The body as a JSON object ({} when empty), or undefined when it is not one or too large.
 * @param {import('node:http').IncomingMessage} req
 * @returns {Promise<Record<string, unknown> | undefined>}
 */
async function readBody (req) {
  let size = 0
  /** @type {Buffer[]} */
  const chunks = []
  for await (const chunk of req) {
    size += chunk.length
    if (size > MAX_BODY_BYTES) return undefined
    chunks.push(chunk)
  }
  const text = Buffer.concat(chunks).toString('utf8').trim()
  if (text === '') return {}
  try {
    const value = JSON.parse(text)
    return value && typeof value === 'object' && !Array.isArray(value) ? value : undefined
  } catch {
    return undefined
  }
}

/** @param {import('node:http').ServerResponse} res @param {number} status @param {unknown} body */
function send (res, status, body) {
  sendText(res, status, 'application/json; charset=utf-8', `${JSON.stringify(body)}\n`)
}

/**
 * @param {import('node:http').ServerResponse} res @param {number} status @param {string} type @param {string} text
 * @param {string | null} [csp]
 */
function sendText (res, status, type, text, csp = PAGE_CSP) {
  if (res.headersSent) {
    res.end()
    return
  }
  const policy = csp ? { 'content-security-policy': csp } : {}
  res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store', 'x-content-type-options': 'nosniff', ...policy })
  res.end(text)
}

/** Chart.js's UMD build in the installed package (the report inlines the same file). */
function chartLibraryFile () {
  const dist = dirname(createRequire(import.meta.url).resolve('chart.js'))
  return join(dist, 'chart.umd.js')
}
