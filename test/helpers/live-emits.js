/**
 * Live emit and ack metrics of a `simulate --metrics-port` run, checked against its result: for
 * ioswarm's own app (test/simulator/reporting/live-metrics.test.js) and servers other people wrote
 * (test/interop/live-metrics.test.js).
 */
import assert from 'node:assert/strict'
import { runCli } from './cli.js'
import { startOtlpReceiver } from './otlp-receiver.js'
import { parseExposition } from './prometheus-text.js'
import { waitFor } from './wait.js'

/**
 * `simulate --emit --emit-ack --metrics-port` (plus `extra` flags) against an app at `url` that
 * acks each chat line: two scrapes during the run see the acks grow and the ack-time histogram
 * fill; the end (the last --otlp push, taken after the final report: the metrics server closes
 * with the run) equals the result's emits. With `replies`, each `move` is answered by a `state`
 * event instead (--reply-event state --reply-match id, as test/peers/python/server.py answers):
 * the same for the replies.
 * @param {import('node:test').TestContext} t
 * @param {string} url
 * @param {string[]} extra
 * @param {{ replies?: boolean }} [options]
 */
export async function checkLiveEmits (t, url, extra, { replies = false } = {}) {
  const receiver = await startOtlpReceiver(t)
  const emit = replies ? ['--emit', 'move {"text":"hi"}', '--reply-event', 'state', '--reply-match', 'id'] : ['--emit', 'chat {"text":"hi"}', '--emit-ack']
  const [answered, time] = replies ? ['ioswarm_replies_replied', 'ioswarm_reply_latency_seconds'] : ['ioswarm_emits_acked', 'ioswarm_emit_ack_latency_seconds']
  /** The metrics URL the simulator prints once it listens (on a port the system chose). @type {string | null} */
  let metrics = null
  const run = runCli(t, ['bin/ioswarm.js', 'simulate', '-c', '4', '--url', url, '--ramp', '0', '--id', 'simE', '--duration', '60s',
    ...emit, '--emit-rate', '2/s', '--metrics-port', '0', '--otlp', receiver.url, '--otlp-interval', '30s',
    '--json', ...extra], { timeoutMs: 90000, onStderr: (text) => { metrics ??= /: metrics (http:\/\/\S+)/.exec(text)?.[1] ?? null } })
  const scrape = async () => {
    if (metrics === null) return null
    const text = await (await fetch(metrics).catch(() => null))?.text()
    return text ? parseExposition(text).sum : null
  }
  const first = /** @type {(name: string) => number} */ (await waitFor(async () => {
    const sum = await scrape()
    return sum && sum(answered) > 0 ? sum : null
  }, { timeoutMs: 30000, intervalMs: 200, message: `${answered} in /metrics during the run` }))
  assert.ok(first(`${time}_count`) > 0, 'the time histogram fills during the run')
  assert.ok(first('ioswarm_emits_sent') >= first(answered))
  const second = /** @type {(name: string) => number} */ (await waitFor(async () => {
    const sum = await scrape()
    return sum && sum(answered) > first(answered) ? sum : null
  }, { timeoutMs: 30000, intervalMs: 200, message: `more ${answered} in a later scrape` }))
  assert.ok(second(`${time}_count`) >= first(`${time}_count`))
  assert.equal(run.child.exitCode, null, 'both scrapes before the end')
  run.child.kill('SIGTERM')
  const done = await run
  assert.equal(done.code, 0, done.stderr)
  const { emits, replies: replied } = JSON.parse(done.stdout).scenario
  const last = (/** @type {string} */ name) => receiver.latest(name).reduce((a, p) => a + p.value, 0)
  const lastCount = (/** @type {string} */ name) => receiver.latest(name).reduce((a, p) => a + (p.histogram?.count ?? 0), 0)
  assert.deepEqual(['sent', 'acked', 'timed_out', 'failed', 'closed'].map((k) => last(`ioswarm_emits_${k}`)),
    [emits.sent, emits.acked, emits.timedOut, emits.failed, emits.closed ?? 0], 'the end: the result\'s emits, none counted twice')
  assert.equal(lastCount('ioswarm_emit_ack_latency_seconds'), emits.acked)
  if (!replies) {
    assert.ok(emits.acked >= second(answered), JSON.stringify(emits))
    return
  }
  assert.ok(replied.replied >= second(answered), JSON.stringify(replied))
  assert.deepEqual(['sent', 'replied', 'timed_out', 'failed'].map((k) => last(`ioswarm_replies_${k}`)),
    [replied.sent, replied.replied, replied.timedOut, replied.failed], 'the end: the result\'s replies, none counted twice')
  assert.equal(lastCount(time), replied.replied)
}
