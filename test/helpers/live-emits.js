/**
 * Live emit and ack metrics of a `simulate --metrics-port` run, checked against its result: for
 * ioswarm's own app (test/simulator/metrics.test.js) and servers other people wrote
 * (test/interop/live-metrics.test.js).
 */
import assert from 'node:assert/strict'
import { runCli } from './cli.js'
import { freePort } from './ports.js'
import { startOtlpReceiver } from './otlp-receiver.js'
import { parseExposition } from './prometheus-text.js'
import { waitFor } from './wait.js'

/**
 * `simulate --emit --emit-ack --metrics-port` (plus `extra` flags) against an app at `url` that
 * acks each chat line: two scrapes during the run see the acks grow and the ack-time histogram
 * fill; the end (the last --otlp push, taken after the final report: the metrics server closes
 * with the run) equals the result's emits.
 * @param {import('node:test').TestContext} t
 * @param {string} url
 * @param {string[]} extra
 */
export async function checkLiveEmits (t, url, extra) {
  const receiver = await startOtlpReceiver(t)
  const port = await freePort()
  const run = runCli(t, ['bin/ioswarm.js', 'simulate', '-c', '4', '--url', url, '--ramp', '0', '--id', 'simE', '--duration', '60s',
    '--emit', 'chat {"text":"hi"}', '--emit-rate', '2/s', '--emit-ack', '--metrics-port', String(port), '--otlp', receiver.url, '--otlp-interval', '30s',
    '--json', '--quiet', ...extra], { timeoutMs: 90000 })
  const metrics = `http://127.0.0.1:${port}/metrics`
  const scrape = async () => {
    const text = await (await fetch(metrics).catch(() => null))?.text()
    return text ? parseExposition(text).sum : null
  }
  const first = /** @type {(name: string) => number} */ (await waitFor(async () => {
    const sum = await scrape()
    return sum && sum('ioswarm_emits_acked') > 0 ? sum : null
  }, { timeoutMs: 30000, intervalMs: 200, message: 'acks in /metrics during the run' }))
  assert.ok(first('ioswarm_emit_ack_latency_seconds_count') > 0, 'the ack-time histogram fills during the run')
  assert.ok(first('ioswarm_emits_sent') >= first('ioswarm_emits_acked'))
  const second = /** @type {(name: string) => number} */ (await waitFor(async () => {
    const sum = await scrape()
    return sum && sum('ioswarm_emits_acked') > first('ioswarm_emits_acked') ? sum : null
  }, { timeoutMs: 30000, intervalMs: 200, message: 'more acks in a later scrape' }))
  assert.ok(second('ioswarm_emit_ack_latency_seconds_count') >= first('ioswarm_emit_ack_latency_seconds_count'))
  assert.equal(run.child.exitCode, null, 'both scrapes before the end')
  run.child.kill('SIGTERM')
  const done = await run
  assert.equal(done.code, 0, done.stderr)
  const emits = JSON.parse(done.stdout).scenario.emits
  const last = (/** @type {string} */ name) => receiver.latest(name).reduce((a, p) => a + p.value, 0)
  assert.ok(emits.acked >= second('ioswarm_emits_acked'), JSON.stringify(emits))
  assert.deepEqual(['sent', 'acked', 'timed_out', 'failed', 'closed'].map((k) => last(`ioswarm_emits_${k}`)),
    [emits.sent, emits.acked, emits.timedOut, emits.failed, emits.closed ?? 0], 'the end: the result\'s emits, none counted twice')
  assert.equal(receiver.latest('ioswarm_emit_ack_latency_seconds').reduce((a, p) => a + (p.histogram?.count ?? 0), 0), emits.acked)
}
