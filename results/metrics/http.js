/**
 * A small HTTP server for a prom-client registry: GET /metrics, nothing else.
 */
import http from 'node:http'
import { invalidOption } from '../../lib/errors.js'
import { parseInteger } from '../../lib/values/parsers.js'

/**
 * Serves `registry()` (a function: the runner swaps registries between distributions) on
 * host:port. Resolves once listening.
 * @param {{ port: number, host?: string, registry: () => import('prom-client').Registry }} options
 * @returns {Promise<{ url: string, port: number, close: () => Promise<void> }>}
 */
export async function serveMetrics ({ port, host = '127.0.0.1', registry }) {
  const server = http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('only GET /metrics here\n')
      return
    }
    const current = registry()
    current.metrics().then((text) => {
      res.writeHead(200, { 'content-type': current.contentType }).end(text)
    }, (error) => {
      res.writeHead(500, { 'content-type': 'text/plain' }).end(`${error.message}\n`)
    })
  })
  await new Promise((resolve, reject) => {
    server.once('error', (error) => {
      const why = /** @type {NodeJS.ErrnoException} */ (error).code ?? error.message
      reject(invalidOption('--metrics-port', `cannot listen on ${host}:${port} (${why}); nothing was started`))
    })
    server.listen(port, host, () => resolve(undefined))
  })
  const address = /** @type {import('node:net').AddressInfo} */ (server.address())
  const shown = address.address.includes(':') ? `[${address.address}]` : address.address
  return {
    url: `http://${shown}:${address.port}/metrics`,
    port: address.port,
    close: () => new Promise((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve(undefined))
    })
  }
}

/**
 * --metrics-port: null when not given; 0 = a free port (logged).
 * @param {unknown} value
 * @param {string} [flag]
 */
export function parseMetricsPort (value, flag = '--metrics-port') {
  if (value === undefined || value === null || value === '') return null
  return parseInteger(value, flag, { min: 0, max: 65535 })
}
