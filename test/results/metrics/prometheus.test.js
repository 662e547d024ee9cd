/**
 * A real Prometheus scrapes a short `ioswarm run --metrics-port` (runTest in process, its
 * server and simulators as real child processes); its HTTP API must give back what
 * result.json says.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rename, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import assert from 'node:assert/strict'
import test from 'node:test'
import { runTest } from '../../../runner/index.js'
import { listensOn, onClosedPort } from '../../helpers/ports.js'
import { waitFor } from '../../helpers/wait.js'

const PROMETHEUS = process.env.PROMETHEUS_BIN ?? '/usr/bin/prometheus'
const missing = existsSync(PROMETHEUS) ? null : `${PROMETHEUS} not found (apt-get install prometheus)`
if (missing && process.env.CI === 'true') throw new Error(`CI=true and ${missing}`)
if (missing) process.stderr.write(`SKIPPING prometheus.test.js: ${missing}\n`)

/**
 * Starts Prometheus on a loopback port (it must be told one: see ports.js), scraping every second the targets a test
 * names later with `scrape(hostPort)` (a file Prometheus watches: the run's metrics port is known once it listens).
 * @param {import('node:test').TestContext} t
 */
async function startPrometheus (t) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-prom-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const config = path.join(dir, 'prometheus.yml')
  const targets = path.join(dir, 'targets.json')
  await writeFile(targets, '[]')
  await writeFile(config, 'global:\n  scrape_interval: 1s\n  evaluation_interval: 1s\nscrape_configs:\n  - job_name: ioswarm\n' +
    `    file_sd_configs:\n      - files: ['${targets}']\n        refresh_interval: 1s\n`)
  const base = await onClosedPort(async (port) => {
    const child = spawn(PROMETHEUS, [`--config.file=${config}`, `--storage.tsdb.path=${path.join(dir, 'data')}`, `--web.listen-address=127.0.0.1:${port}`], {
      stdio: ['ignore', 'ignore', 'pipe']
    })
    let stderr = ''
    child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000) })
    const exited = new Promise((resolve) => child.once('exit', resolve))
    t.after(async () => {
      if (child.exitCode === null) process.kill(/** @type {number} */ (child.pid), 'SIGTERM')
      await exited
    })
    const url = `http://127.0.0.1:${port}`
    await waitFor(async () => {
      if (child.exitCode !== null) throw new Error(`prometheus exited: ${stderr.slice(-500)}`)
      return (await fetch(`${url}/-/ready`).catch(() => null))?.ok && listensOn(/** @type {number} */ (child.pid), port)
    }, { timeoutMs: 20000, message: () => `prometheus ready (stderr: ${stderr.slice(-500)})` })
    return url
  })
  return {
    /** Scrape this target (host:port) from now on. @param {string} hostPort */
    async scrape (hostPort) {
      // Written whole, then renamed over the watched file: Prometheus never reads half of it.
      await writeFile(`${targets}.new`, JSON.stringify([{ targets: [hostPort] }]))
      await rename(`${targets}.new`, targets)
    },
    /** @param {string} expr @returns {Promise<{ metric: Record<string, string>, value: [number, string] }[]>} */
    async query (expr) {
      const body = /** @type {any} */ (await (await fetch(`${base}/api/v1/query?query=${encodeURIComponent(expr)}`)).json())
      assert.equal(body.status, 'success', JSON.stringify(body))
      return body.data.result
    },
    /** Epoch ms of the last scrape of our target, 0 before the first. */
    async lastScrapeMs () {
      const body = /** @type {any} */ (await (await fetch(`${base}/api/v1/targets`)).json())
      const target = body.data.activeTargets[0]
      return target && target.health === 'up' ? Date.parse(target.lastScrape) : 0
    }
  }
}

/** @param {{ value: [number, string] }[]} result */
const sum = (result) => result.reduce((s, r) => s + Number(r.value[1]), 0)

test('Prometheus scrapes a run: ' +
  'clients connected, messages received and a delay histogram match result.json', { skip: missing ?? false, timeout: 120000 }, async (t) => {
  const prometheus = await startPrometheus(t)
  /** The scrape of the run's metrics (--metrics-port 0: the run says which port it got), started when it says so. @type {Promise<void>[]} */
  const scraping = []
  const result = await runTest({ simulators: 2, clientsPerSimulator: 20, rounds: '3x300', ramp: '500ms', pingInterval: '5s', metricsPort: 0 }, {
    log: (line) => {
      const hostPort = /^metrics: http:\/\/([\d.]+:\d+)\/metrics$/.exec(line)?.[1]
      if (hostPort) scraping.push(prometheus.scrape(hostPort))
    },
    // After the run, before the metrics server closes: wait for one full scrape after now.
    metricsLinger: async () => {
      assert.equal(scraping.length, 1, 'the run said where its metrics are')
      await scraping[0]
      const after = Date.now()
      await waitFor(async () => (await prometheus.lastScrapeMs()) > after + 50, { timeoutMs: 15000, intervalMs: 100, message: 'a scrape after the run' })
    }
  })
  const dist = result.distributions[0]
  const received = dist.rounds.reduce((s, r) => s + r.received, 0)
  const relativeCount = dist.rounds.reduce((s, r) => s + r.relative.count, 0)
  assert.ok(received > 0, 'the run delivered messages')
  const run = `run="${result.run.id}"`

  assert.equal(sum(await prometheus.query(`ioswarm_clients_connected{${run},transport="websocket"}`)), dist.clients.connected)
  assert.equal(sum(await prometheus.query(`ioswarm_clients_target{${run}}`)), dist.clients.target)
  assert.equal(sum(await prometheus.query(`ioswarm_messages_received_total{${run}}`)), received)
  assert.equal(sum(await prometheus.query(`ioswarm_message_relative_delay_seconds_count{${run}}`)), relativeCount)
  assert.equal(sum(await prometheus.query(`ioswarm_message_relative_delay_seconds_bucket{${run},le="+Inf"}`)), relativeCount)
  const quantile = await prometheus.query(`histogram_quantile(0.5, sum by (le) (ioswarm_message_relative_delay_seconds_bucket{${run}}))`)
  assert.equal(quantile.length, 1)
  assert.ok(Number(quantile[0].value[1]) <= 30, 'a median inside the buckets')
  const lastRound = dist.rounds.at(-1)
  const p99 = await prometheus.query(`ioswarm_round_relative_delay_seconds{${run},quantile="0.99"}`)
  assert.equal(Number(p99[0].value[1]), /** @type {any} */ (lastRound).relative.p99 / 1000)
  assert.equal(sum(await prometheus.query(`ioswarm_simulator_up{${run}}`)), 0, 'both simulators stopped')
})
