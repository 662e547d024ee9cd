import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import test from 'node:test'
import { createRunMetrics, createServerMetrics } from '../../results/metrics/index.js'

const dashboard = JSON.parse(readFileSync(new URL('../../infra/grafana/ioswarm-dashboard.json', import.meta.url), 'utf8'))

test('the dashboard is importable JSON with unique panel ids and the panels the issue asks for', () => {
  assert.equal(typeof dashboard.title, 'string')
  const ids = dashboard.panels.map((/** @type {any} */ p) => p.id)
  assert.equal(new Set(ids).size, ids.length)
  const titles = dashboard.panels.map((/** @type {any} */ p) => p.title).join('\n')
  for (const wanted of [
    /Connected clients by transport/,
    /percentiles of the last completed round/,
    /Missing/,
    /Simulator event-loop delay/,
    /Server CPU/,
    /Server memory/,
    /storms/i,
    /per room/
  ]) {
    assert.match(titles, wanted)
  }
})

test('the dashboard queries every metric ioswarm exports, and nothing else', async () => {
  const exported = new Set()
  for (const registry of [createRunMetrics({ run: 'r' }).registry, createServerMetrics().registry]) {
    for (const metric of await registry.getMetricsAsJSON()) exported.add(metric.name)
  }
  const queried = new Set(JSON.stringify(dashboard).match(/ioswarm_[a-z0-9_]+/g)?.map((n) => n.replace(/_(bucket|sum|count)$/, '')))
  assert.ok(queried.size > 10)
  for (const name of queried) assert.ok(exported.has(name), `${name} is exported`)
  for (const name of exported) assert.ok(queried.has(name), `${name} is on the dashboard`)
})

test('every sum over simulators is of one scrape job: the runner\'s view already holds every simulator', () => {
  const exprs = JSON.stringify(dashboard.panels).match(/"expr":"(?:[^"\\]|\\.)*"/g) ?? []
  assert.ok(exprs.length > 10)
  for (const expr of exprs.filter((e) => !e.includes('ioswarm_server_'))) assert.match(expr, /job=~\\"\$job\\"/, expr)
  const job = dashboard.templating.list.find((/** @type {any} */ v) => v.name === 'job')
  assert.deepEqual([job?.includeAll, job?.multi], [false, false], 'one job at a time')
})
