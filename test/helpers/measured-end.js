/**
 * Ends an `ioswarm simulate` run (the real binary, started by runCli with `--metrics-port 0`
 * and without `--quiet`, so it prints its metrics address) as soon as its live metrics show
 * what a test waits for: SIGTERM, which ends the swarm through the same path as its --duration
 * timer (simulator/swarm/swarm.js waitForEnd). A run then lasts as long as its events take, not its
 * whole --duration; that duration stays the bound: when the count never comes, the run ends by
 * itself as before and the test's own assertions on its result say what was missing.
 */
import { setTimeout as sleep } from 'node:timers/promises'

/**
 * @typedef {ReturnType<typeof import('./cli.js').runCli>} CliRun
 * @typedef {(name: string) => number} MetricSum the sum of a metric's series, 0 when it has none
 */

/**
 * @param {CliRun} run
 * @param {(metric: MetricSum) => boolean} until
 * @param {{ intervalMs?: number }} [options]
 * @returns {Promise<number | null>} when SIGTERM was sent (Date.now()), null when the run ended first
 */
export async function endWhenMetrics (run, until, { intervalMs = 100 } = {}) {
  const { child } = run
  const ended = () => child.exitCode !== null || child.signalCode !== null
  // Bounded by the run itself (its --duration and runCli's timeout), and by a count of polls.
  for (let polls = 0; polls < 10000 && !ended(); polls++) {
    const url = /metrics (http:\/\/\S+\/metrics)/.exec(run.output().stderr)?.[1]
    const text = url ? await fetch(url).then((r) => r.text(), () => '') : ''
    if (text !== '' && until((name) => sum(text, name))) {
      if (ended()) return null
      child.kill('SIGTERM')
      return Date.now()
    }
    await sleep(intervalMs)
  }
  return null
}

/**
 * Ends the run once `messages` messages are closed (every expected copy in, or timed out) with
 * `clients` deliveries each.
 * @param {CliRun} run
 * @param {{ messages: number, clients: number }} expect
 */
export function endWhenMeasured (run, { messages, clients }) {
  return endWhenMetrics(run, (metric) => metric('ioswarm_messages_total') >= messages && metric('ioswarm_messages_received_total') >= messages * clients)
}

/**
 * Ends the run once `errors` connect errors are counted (the simulator's one-second sample).
 * @param {CliRun} run
 * @param {number} errors
 */
export function endWhenRefused (run, errors) {
  return endWhenMetrics(run, (metric) => metric('ioswarm_connect_errors_total') >= errors)
}

/**
 * @param {string} text Prometheus text
 * @param {string} name
 */
function sum (text, name) {
  let total = 0
  for (const line of text.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `)) total += Number(line.slice(line.lastIndexOf(' ') + 1))
  }
  return total
}
