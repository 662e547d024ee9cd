/**
 * The handler `ioswarm run` and `ioswarm capacity` share: check every option and the CI paths
 * before anything starts, make the results folder, run with progress on stderr and a graceful
 * stop on SIGINT/SIGTERM, then write the files, the summary, the CI outputs and the exit code.
 * Each command says only what differs: how it starts, what it writes, what it prints.
 */
import { rmdir } from 'node:fs/promises'
import path from 'node:path'
import { makeOutDir, printJsonResult, progressWriter, stopOnSignals } from '../lib/cli-run.js'
import { parseOptions } from '../lib/cli-options/index.js'
import { VERSION } from '../lib/version.js'
import { checkCiPaths, liveEventsOf, writeCiOutputs } from '../results/index.js'
import { createSteering, formatActionLine } from '../lib/steering.js'
import { openDashboard } from './live/dashboard.js'

/**
 * What a long-running command hands its library call: the stop signal, the steering and where its lines go.
 * @typedef {object} TestHooks
 * @property {AbortSignal} signal aborted by the first SIGINT/SIGTERM, or the steering's stop (one path)
 * @property {import('../lib/steering.js').Steering} steering the test's steering (the dashboard, its HTTP API): Ctrl-C is its stop
 *   action; every action is printed as it is decided
 * @property {(line: string) => void} log a line kept on stderr (not with --quiet)
 * @property {(line: string) => void} status the progress line (refreshed on a TTY)
 * @property {import('../results/dashboard/index.js').LiveStreamLike} [stream] --dashboard: the live stream the test's seconds go to
 */

/**
 * @template R
 * @typedef {object} TestCommand
 * @property {'run' | 'capacity'} name the command, as `parseOptions` and the CI outputs know it
 * @property {(argv: Record<string, any>) => { out: string, runId?: string, name?: string, start: (hooks: TestHooks) => Promise<R> }} prepare
 *   checks every option (throws before anything starts) and says the default results folder, the run's id and name, and how the test starts
 * @property {(out: string, result: R, opts: { live: import('../results/report/live.js').LiveEvents | null }) => Promise<Record<string, string>>} writeFiles
 *   the results folder's files, by name (result, report, …); live: the dashboard's stream, for the report
 * @property {(result: R) => string} summary the text on stderr before the files are named
 * @property {(result: R) => number} exitCode
 * @property {(result: R) => import('../results/files/ci.js').CiEntry} ciEntry what --junit and --summary-json are made of
 */

/**
 * A yargs handler for a long-running test command.
 * @template R
 * @param {TestCommand<R>} command
 * @returns {(argv: Record<string, any>) => Promise<void>}
 */
export function testCommandHandler (command) {
  return async (argv) => {
    // Every option, the simulators' included, is checked before anything starts.
    const { out: outOption, start, runId, name } = command.prepare(argv)
    const { json, quiet, junit, summaryJson } = parseOptions(command.name, argv)
    await checkCiPaths({ junit, summaryJson })
    const out = path.resolve(outOption)
    // Made now (a folder that cannot be written stops the test before it starts), and removed
    // again if the test fails before writing anything in it (Redis unreachable, say).
    const made = await makeOutDir(out)
    const id = runId ?? path.basename(out)
    const dashboard = await openDashboard(argv, { command: command.name, runId: id, name: name ?? id, out })
    const result = await runWithProgress(command.name, quiet, start, dashboard).catch(async (error) => {
      await dashboard?.close({ error: error.message })
      if (made !== undefined) await rmdir(out).catch(() => {}) // only if still empty
      throw error
    })
    const files = await command.writeFiles(out, result, { live: dashboard ? liveEventsOf(dashboard.stream.history()) : null })
    // The pages learn where the files are; their streams end, and the command does not wait for them.
    await dashboard?.close({ result: files.result, report: files.report, events: path.join(out, 'events.ndjson') })
    process.stderr.write(command.summary(result))
    process.stderr.write(`\nresults: ${files.result}\nreport:  ${files.report}\n`)
    const exitCode = command.exitCode(result)
    const run = { command: command.name, exitCode, version: VERSION }
    const ci = await writeCiOutputs({ junit, summaryJson }, [command.ciEntry(result)], run)
    for (const file of ci) process.stderr.write(`written: ${file}\n`)
    if (json) await printJsonResult(`ioswarm ${command.name}`, result)
    process.exitCode = exitCode
  }
}

/**
 * Starts the test with its hooks: progress on stderr, a stop on the first signal, the steering.
 * @template R
 * @param {'run' | 'capacity'} name the command
 * @param {boolean | undefined} quiet
 * @param {(hooks: TestHooks) => Promise<R>} start
 * @param {Awaited<ReturnType<typeof openDashboard>>} [dashboard] --dashboard: the seconds and log lines go to its stream, its actions to the steering
 * @returns {Promise<R>}
 */
async function runWithProgress (name, quiet, start, dashboard) {
  const stream = dashboard?.stream
  const progress = progressWriter({ quiet, everyMs: 5000 })
  // Ctrl-C and the dashboard's actions steer the test through one object; each action is said as it is decided, even with --quiet.
  const steering = createSteering({ command: name })
  const stop = stopOnSignals(`ioswarm ${name}`, steering)
  const unlisten = steering.onEvent((event) => {
    progress.done()
    process.stderr.write(`${formatActionLine(event)}\n`)
  })
  // The page's buttons and the HTTP API act through the same steering; its events join the stream.
  dashboard?.attachSteering(steering)
  try {
    return await start({
      signal: stop.signal,
      steering,
      ...(stream ? { stream } : {}),
      log: (line) => {
        progress.done()
        if (!quiet) process.stderr.write(`${line}\n`)
        stream?.push({ type: 'log', at: Date.now(), text: line })
      },
      status: (line) => progress.update(line)
    })
  } finally {
    progress.done()
    stop.dispose()
    unlisten()
    dashboard?.attachSteering(null)
  }
}
