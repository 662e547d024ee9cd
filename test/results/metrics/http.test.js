import assert from 'node:assert/strict'
import test from 'node:test'
import client from 'prom-client'
import { parseMetricsPort, serveMetrics } from '../../../results/metrics/http.js'

test('GET /metrics answers the current registry; other paths 404; close stops it', async (t) => {
  const registry = new client.Registry()
  new client.Gauge({ name: 'x_things', help: 'things', registers: [registry] }).set(7)
  const server = await serveMetrics({ port: 0, registry: () => registry })
  t.after(() => server.close())
  assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
  const response = await fetch(server.url)
  assert.equal(response.status, 200)
  assert.match(String(response.headers.get('content-type')), /text\/plain; version=0\.0\.4/)
  assert.match(await response.text(), /^x_things 7$/m)
  assert.equal((await fetch(new URL('/', server.url))).status, 404)
  assert.equal((await fetch(server.url, { method: 'POST' })).status, 404)
})

test('a port in use is an error naming --metrics-port; bad ports are refused', async (t) => {
  const first = await serveMetrics({ port: 0, registry: () => new client.Registry() })
  t.after(() => first.close())
  await assert.rejects(serveMetrics({ port: first.port, registry: () => new client.Registry() }), {
    code: 'IOSWARM_ERR_INVALID_OPTION',
    message: /--metrics-port cannot listen on 127\.0\.0\.1:\d+ \(EADDRINUSE\)/
  })
  assert.equal(parseMetricsPort(undefined), null)
  assert.equal(parseMetricsPort('0'), 0)
  assert.throws(() => parseMetricsPort('-1'), /--metrics-port must be a whole number from 0 to 65535/)
})
