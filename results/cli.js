/**
 * `ioswarm report`: an HTML report from any result (a run's result.json, a `simulate --json`
 * result, a capacity search's result.json) or a comparison of several, the summary and
 * threshold verdicts on stderr, JSON on stdout with --json, CI files with --junit and
 * --summary-json, exit 3 when an --assert threshold fails.
 */
import { existsSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { EXIT, invalidOption } from '../lib/errors.js'
import { declareOptions, parseOptions } from '../lib/cli-options/index.js'
import { COMMAND_LINES } from '../lib/cli-options/commands.js'
import { VERSION } from '../lib/version.js'
import { stopOnSignals } from '../lib/cli-run.js'
import { EVENTS_FILE, newDashboardToken, readEventsLog, replayStream, startDashboardServer } from './dashboard/index.js'
import { liveEventsOf } from './report/live.js'
import { buildCapacityReport, buildCompareReport, buildReport } from './report/index.js'
import { readResult } from './report/load.js'
import { capacityCases, writeCiOutputs } from './files/ci.js'
import { formatRunSummary, formatThresholds, summarizeRun } from './text/summary.js'
import { evaluateThresholds, parseThreshold, thresholdEpilog } from './thresholds/thresholds.js'

/**
 * @typedef {object} ReportArgs
 * @property {string[]} results
 * @property {string} [out]
 * @property {boolean} compare
 * @property {string[]} [label]
 * @property {string[]} [assert]
 * @property {boolean} json
 * @property {string} [junit]
 * @property {string} [summaryJson]
 * @property {number | null} [dashboard] play an events.ndjson back into the live page on this port
 * @property {string} [dashboardHost]
 */

/** @type {import('yargs').CommandModule<any, any>} */
export const reportCommand = {
  ...COMMAND_LINES.report,
  builder: (yargs) => declareOptions(yargs
    .positional('results', {
      type: 'string',
      array: true,
      default: undefined,
      describe: 'result files: the result.json of ioswarm run or capacity, or the output of ioswarm simulate --json'
    }), 'report', thresholdEpilog)
    .example('$0 report result.json --assert p99<500ms', 'report.html next to result.json; exit 3 if p99 > 500 ms')
    .example('$0 report sim.json --assert ack.p99<200ms --junit junit.xml', 'a simulate --json result, the verdicts as JUnit XML for CI')
    .example('$0 report a.json b.json --compare', 'compare.html: two results side by side')
    .example('$0 report ioswarm-results/RUN/events.ndjson --dashboard', 'play a run\'s events log (written with --dashboard) back into the live page'),
  handler: (argv) => runReport(/** @type {ReportArgs} */ (/** @type {unknown} */ ({ ...argv, ...parseOptions('report', argv) })))
}

/**
 * @param {ReportArgs} args
 */
async function runReport (args) {
  if (args.dashboard !== null && args.dashboard !== undefined) return replayIntoDashboard(args)
  const thresholds = (args.assert ?? []).map(parseThreshold)
  const files = args.results.map(String)
  if (files.length > 1 && !args.compare) throw invalidOption('--compare', `is needed to report on ${files.length} result files together (or give one file)`)
  if (args.label && args.label.length !== files.length) {
    throw invalidOption('--label', `must be given once per result file: ${files.length} files, ${args.label.length} labels`)
  }
  if (files.some((f) => f.endsWith('.ndjson'))) {
    throw invalidOption('--dashboard', 'is needed to play an events log (.ndjson) back: ioswarm report events.ndjson --dashboard')
  }
  const items = []
  for (const file of files) items.push(await readResult(file))
  const search = items.findIndex((x) => x.kind === 'capacity')
  if (thresholds.length && search >= 0) {
    throw invalidOption('--assert', `does not apply to ${files[search]}, a capacity result: its steps were judged by the --slo it ran with`)
  }
  // Without --assert a report shows the verdicts the run recorded; only --assert decides the exit code.
  const entries = items.map((x, i) => (x.kind === 'capacity'
    ? { ...x, file: files[i] }
    : { ...x, file: files[i], verdicts: thresholds.length ? evaluateThresholds(x.result, thresholds) : x.result.thresholds ?? [] }))
  const first = entries[0]
  const generatedAt = Date.now()
  const html = args.compare
    ? buildCompareReport(items.map((x) => x.result), { labels: args.label })
    : first.kind === 'capacity'
      ? buildCapacityReport(first.result, { generatedAt })
      : buildReport({ ...first.result, thresholds: first.verdicts }, { generatedAt, live: await liveBeside(files[0]) })
  const out = resolve(args.out ?? join(dirname(files[0]), args.compare ? 'compare.html' : 'report.html'))
  try {
    await writeFile(out, html)
  } catch (error) {
    throw invalidOption('--out', `cannot be written: ${/** @type {Error} */ (error).message}`)
  }
  for (const entry of entries) process.stderr.write(`${formatEntry(entry, thresholds.length > 0)}\n\n`)
  process.stderr.write(`report written to ${out}\n`)
  const failed = thresholds.length > 0 && entries.some((e) => e.kind !== 'capacity' && e.verdicts.some((v) => !v.ok))
  const exitCode = failed ? EXIT.THRESHOLD : EXIT.OK
  const written = await writeCiOutputs({ junit: args.junit, summaryJson: args.summaryJson }, entries, { command: 'report', exitCode, version: VERSION })
  for (const file of written) process.stderr.write(`written: ${file}\n`)
  if (args.json) {
    const runs = entries.map((e) => (e.kind === 'capacity'
      ? { file: e.file, kind: e.kind, outcome: e.result.outcome, capacity: e.result.capacity, answer: e.result.answer, slo: capacityCases(e.result) }
      : { file: e.file, kind: e.kind, summary: summarizeRun(e.result), thresholds: e.verdicts }))
    process.stdout.write(`${JSON.stringify({ report: out, runs }, null, 2)}\n`)
  }
  process.exitCode = exitCode
}

/**
 * What the terminal shows of one result: a run's summary and verdicts, a capacity search's answer.
 * @param {import('./files/ci.js').CiEntry} entry
 * @param {boolean} asserted the verdicts come from --assert (else the run recorded them)
 */
function formatEntry (entry, asserted) {
  if (entry.kind === 'capacity') {
    const r = entry.result
    return [`capacity search ${r.run.name}: ${r.answer}`, ...r.advice.map((a) => `  - ${a}`)].join('\n')
  }
  const verdicts = entry.verdicts.length ? `\n\n${formatThresholds(entry.verdicts)}${asserted ? '' : ' (recorded by the run)'}` : ''
  return `${formatRunSummary(entry.result)}${verdicts}`
}

/**
 * The events log beside a result file (a run with --dashboard wrote one), sorted for the report's
 * second-by-second charts; null without one.
 * @param {string} file
 */
async function liveBeside (file) {
  const log = join(dirname(file), EVENTS_FILE)
  if (!existsSync(log)) return null
  return liveEventsOf(await readEventsLog(log))
}

/**
 * `report events.ndjson --dashboard`: the log played back into the live page, served until Ctrl-C.
 * @param {ReportArgs} args
 */
async function replayIntoDashboard (args) {
  const files = args.results.map(String)
  if (files.length !== 1) throw invalidOption('--dashboard', `plays one events log back, got ${files.length} files`)
  const { stream, end } = replayStream(await readEventsLog(files[0]))
  const server = await startDashboardServer({
    stream,
    token: newDashboardToken(),
    port: Number(args.dashboard),
    host: String(args.dashboardHost ?? '127.0.0.1'),
    title: 'ioswarm replay'
  })
  const { type, at, ...files_ } = end ?? { type: 'end', at: 0 }
  await stream.end(files_)
  process.stderr.write(`dashboard: ${server.viewUrl} (playing ${files[0]} back; Ctrl-C to stop)\n`)
  const stop = stopOnSignals('ioswarm report')
  await new Promise((resolve) => stop.signal.addEventListener('abort', resolve, { once: true }))
  stop.dispose()
  await server.close()
}
