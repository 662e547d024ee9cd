/**
 * `ioswarm report`: an HTML report from a result.json (or a comparison of several), the
 * summary and threshold verdicts on stderr, JSON on stdout with --json, exit 3 when an
 * --assert threshold fails.
 */
import { writeFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { EXIT, invalidOption } from '../lib/errors.js'
import { declareOptions, parseOptions } from '../lib/cli-options/index.js'
import { COMMAND_LINES } from '../lib/cli-options/commands.js'
import { buildCompareReport, buildReport } from './report/index.js'
import { readRunResult } from './report/load.js'
import { formatRunSummary, formatThresholds, summarizeRun } from './summary.js'
import { evaluateThresholds, parseThreshold, thresholdHelp } from './thresholds.js'

/**
 * @typedef {object} ReportArgs
 * @property {string[]} results
 * @property {string} [out]
 * @property {boolean} compare
 * @property {string[]} [label]
 * @property {string[]} [assert]
 * @property {boolean} json
 */

/** @type {import('yargs').CommandModule<any, any>} */
export const reportCommand = {
  ...COMMAND_LINES.report,
  builder: (yargs) => declareOptions(yargs
    .positional('results', { type: 'string', array: true, default: undefined, describe: 'result.json files written by ioswarm run' }), 'report')
    .example('$0 report result.json --assert p99<500ms', 'report.html next to result.json; exit 3 if p99 > 500 ms')
    .example('$0 report a.json b.json --compare', 'compare.html: two runs side by side')
    .epilog(thresholdHelp()),
  handler: (argv) => runReport(/** @type {ReportArgs} */ (/** @type {unknown} */ ({ ...argv, ...parseOptions('report', argv) })))
}

/**
 * @param {ReportArgs} args
 */
async function runReport (args) {
  const thresholds = (args.assert ?? []).map(parseThreshold)
  const files = args.results.map(String)
  if (files.length > 1 && !args.compare) throw invalidOption('--compare', `is needed to report on ${files.length} result files together (or give one file)`)
  if (args.label && args.label.length !== files.length) throw invalidOption('--label', `must be given once per result file: ${files.length} files, ${args.label.length} labels`)
  const results = []
  for (const file of files) results.push(await readRunResult(file))
  // Without --assert a report shows the verdicts the run recorded; only --assert decides the exit code.
  const verdicts = results.map((r) => (thresholds.length ? evaluateThresholds(r, thresholds) : r.thresholds ?? []))
  const html = args.compare
    ? buildCompareReport(results, { labels: args.label })
    : buildReport({ ...results[0], thresholds: verdicts[0] }, { generatedAt: Date.now() })
  const out = resolve(args.out ?? join(dirname(files[0]), args.compare ? 'compare.html' : 'report.html'))
  try {
    await writeFile(out, html)
  } catch (error) {
    throw invalidOption('--out', `cannot be written: ${/** @type {Error} */ (error).message}`)
  }
  results.forEach((r, i) => {
    process.stderr.write(`${formatRunSummary(r)}\n`)
    if (verdicts[i].length) process.stderr.write(`\n${formatThresholds(verdicts[i])}${thresholds.length ? '' : ' (recorded by the run)'}\n`)
    process.stderr.write('\n')
  })
  process.stderr.write(`report written to ${out}\n`)
  if (args.json) {
    const runs = results.map((r, i) => ({ file: files[i], summary: summarizeRun(r), thresholds: verdicts[i] }))
    process.stdout.write(`${JSON.stringify({ report: out, runs }, null, 2)}\n`)
  }
  if (thresholds.length && verdicts.some((list) => list.some((v) => !v.ok))) process.exitCode = EXIT.THRESHOLD
}
