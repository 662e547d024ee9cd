/**
 * `ioswarm run`: one command for a whole test.
 */
import { rmdir } from 'node:fs/promises'
import path from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { makeOutDir, printJsonResult, progressWriter, stopOnSignals } from '../lib/cli-run.js'
import { EXIT } from '../lib/errors.js'
import { declareOptions, parseOptions } from '../lib/cli-options/index.js'
import { COMMAND_LINES } from '../lib/cli-options/commands.js'
import { checkCiPaths, formatRunSummary, formatThresholds, liveEventsOf, thresholdEpilog, writeCiOutputs } from '../results/index.js'
import { VERSION } from '../lib/version.js'
import { runTest } from './index.js'
import { newRunId, normalizeRunOptions } from './run-options.js'
import { writeRunFiles } from './output.js'
import { openDashboard } from './dashboard.js'

/** @type {import('yargs').CommandModule<{}, any>} */
export const runCommand = {
  ...COMMAND_LINES.run,
  builder: (y) => declareOptions(y
    .usage('$0 run [options]\n\nStarts the reference server (or uses --target), starts --simulators processes of --clients each (or each of --distributions in turn), waits for the clients over the ramp, broadcasts --rounds (or, with --rounds none, holds them for --duration while their own --emit/--scenario traffic and the app\'s run, in --window windows; or, with --phases, follows a load profile of clients instead, without rounds), collects every simulator\'s measurements, and writes result.json, messages.csv (with rounds: a row per message), deliveries.csv (per namespace, room and event), samples.csv, reasons.csv, windows.csv (without rounds) and report.html to --out.'), 'run', thresholdEpilog)
    .example('$0 run --distributions 2x500,4x250 --rounds 5x1000,5x500', 'compare two layouts of 1,000 clients')
    .example('$0 run --target https://app.example --token $T --redis redis://10.0.0.5 --simulators 0 --expect-simulators 20', 'a fleet test')
    .example('$0 run --target http://localhost:3000 --duration 5m --window 10s --clients 500 --emit \'chat {"text":"hi"}\' --emit-rate 1/5s --emit-ack', 'a chat app: its own traffic, no broadcaster (no --token), results in 10 s windows')
    .example('$0 run --protocol websocket --clients 500', 'a whole local test against the plain WebSocket reference server')
    .example('$0 run --metrics-port 9464 --metrics-linger 30s --otlp http://otel-collector:4318', 'watch it live: Prometheus at :9464/metrics, and OTLP pushes'),
  handler: async (argv) => {
    // Every option, the simulators' included, is checked before anything starts.
    const options = normalizeRunOptions(argv)
    const { json, quiet, junit, summaryJson } = parseOptions('run', argv)
    await checkCiPaths({ junit, summaryJson })
    const runId = options.runId ?? newRunId()
    const out = path.resolve(options.out ?? path.join('ioswarm-results', runId))
    // Made now (a folder that cannot be written stops the run before it starts), and removed
    // again if the run fails before writing anything in it (Redis unreachable, say).
    const made = await makeOutDir(out)
    const progress = progressWriter({ quiet, everyMs: 5000 })
    const dashboard = await openDashboard(argv, { command: 'run', runId, name: options.name ?? runId, out })
    const stop = stopOnSignals('ioswarm run')
    let result
    try {
      result = await runTest({ ...argv, run: runId }, {
        signal: stop.signal,
        stream: dashboard?.stream,
        log: (line) => {
          progress.done()
          if (!quiet) process.stderr.write(`${line}\n`)
          dashboard?.stream.push({ type: 'log', at: Date.now(), text: line })
        },
        status: (line) => progress.update(line),
        metricsLinger: (url) => lingerMetrics(url, options.metricsLingerMs, stop.signal)
      })
    } catch (error) {
      await dashboard?.close({ error: /** @type {Error} */ (error).message })
      if (made !== undefined) await rmdir(out).catch(() => {}) // only if still empty
      throw error
    } finally {
      progress.done()
      stop.dispose()
    }
    const files = await writeRunFiles(out, result, { live: dashboard ? liveEventsOf(dashboard.stream.history()) : null })
    await dashboard?.close({ result: files.result, report: files.report, events: path.join(out, 'events.ndjson') })
    process.stderr.write(`\n${formatRunSummary(result)}\n`)
    if (result.thresholds) process.stderr.write(`\n${formatThresholds(result.thresholds)}\n`)
    process.stderr.write(`\nresults: ${files.result}\nreport:  ${files.report}\n`)
    const exitCode = result.thresholds?.some((t) => !t.ok) ? EXIT.THRESHOLD : EXIT.OK
    const ci = await writeCiOutputs({ junit, summaryJson }, [{ kind: 'run', result, verdicts: result.thresholds ?? [] }], { command: 'run', exitCode, version: VERSION })
    for (const file of ci) process.stderr.write(`written: ${file}\n`)
    if (json) await printJsonResult('ioswarm run', result)
    process.exitCode = exitCode
  }
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
