/**
 * `ioswarm run`: one command for a whole test.
 */
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { EXIT } from '../lib/errors.js'
import { declareOptions } from '../lib/cli-options/index.js'
import { COMMAND_LINES } from '../lib/cli-options/commands.js'
import { formatRunSummary, formatThresholds, thresholdEpilog } from '../results/index.js'
import { runTest } from './index.js'
import { newRunId, normalizeRunOptions } from './run-options.js'
import { writeRunFiles } from './output.js'
import { testCommandHandler } from './test-command.js'

/** What `--help` says first: the command line, then what it does. */
const USAGE = [
  '$0 run [options]',
  'Starts the reference server (or uses --target) and --simulators processes that split --clients (or each of --distributions in turn), waits for the clients over the ramp, broadcasts --rounds (or, with --rounds none, runs for --duration on their own --emit/--scenario traffic and the app\'s, in --window windows; or follows --phases), and writes result.json, CSVs and report.html to --out.'
].join('\n\n')

/** @type {import('yargs').CommandModule<{}, any>} */
export const runCommand = {
  ...COMMAND_LINES.run,
  builder: (y) => declareOptions(y
    .usage(USAGE), 'run', thresholdEpilog)
    .example('$0 run --distributions 2x500,4x250 --rounds 5x1000,5x500', 'compare two layouts of 1,000 clients')
    .example('$0 run --target https://app.example --token $T --redis redis://10.0.0.5 --simulators 0 --expect-simulators 20', 'a fleet test')
    .example('$0 run --target http://localhost:3000 --total-duration 5m --window 10s --total-clients 500 --emit \'chat {"text":"hi"}\' --emit-rate 1/5s --emit-ack',
      'a chat app: its own traffic, no broadcaster (no --token), results in 10 s windows')
    .example('$0 run --protocol websocket --total-clients 500', 'a whole local test against the plain WebSocket reference server')
    .example('$0 run --metrics-port 9464 --metrics-linger 30s --otlp http://otel-collector:4318',
      'watch it live: Prometheus at :9464/metrics, and OTLP pushes'),
  handler: testCommandHandler({
    name: 'run',
    prepare: (argv) => {
      const options = normalizeRunOptions(argv)
      const runId = options.runId ?? newRunId()
      return {
        out: options.out ?? path.join('ioswarm-results', runId),
        runId,
        name: options.name ?? runId,
        start: (hooks) => runTest({ ...argv, run: runId }, {
          ...hooks,
          metricsLinger: (url) => lingerMetrics(url, options.metricsLingerMs, hooks.signal)
        })
      }
    },
    writeFiles: writeRunFiles,
    summary: (result) => `\n${formatRunSummary(result)}\n${result.thresholds ? `\n${formatThresholds(result.thresholds)}\n` : ''}`,
    exitCode: (result) => result.thresholds?.some((t) => !t.ok) ? EXIT.THRESHOLD : EXIT.OK,
    ciEntry: (result) => ({ kind: 'run', result, verdicts: result.thresholds ?? [] })
  })
}

/**
 * Waits --metrics-linger (or until Ctrl-C) while the metrics server still answers.
 * @param {string} url
 * @param {number} ms
 * @param {AbortSignal} signal
 */
async function lingerMetrics (url, ms, signal) {
  if (ms === 0) return
  process.stderr.write(`metrics: serving ${url} for ${Math.round(ms / 1000)} s more (--metrics-linger)\n`)
  await sleep(ms, undefined, { signal }).catch(() => {})
}
