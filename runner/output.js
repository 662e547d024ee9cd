/**
 * Writes a run's files: result.json, messages.csv (a row per message: runs with rounds only; a run without rounds
 * rolls its lines up, and deliveries.csv holds them per namespace, room and event), deliveries.csv, samples.csv,
 * reasons.csv, windows.csv (a run without rounds) and report.html.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { CODES, IoswarmError } from '../lib/errors.js'
import { buildReport, deliveriesCsv, messagesCsv, reasonsCsv, samplesCsv, windowsCsv } from '../results/index.js'

/**
 * @param {string} dir
 * @param {import('../lib/schema/result-schema.js').RunResult} result
 * @param {{ live?: import('../results/report/live.js').LiveEvents | null }} [opts] live: the run's stream (--dashboard), drawn in the report too
 * @returns {Promise<Record<string, string>>} the paths written, by kind
 */
export async function writeRunFiles (dir, result, { live = null } = {}) {
  const files = {
    result: path.join(dir, 'result.json'),
    ...(result.distributions.some((d) => !d.lines) ? { messages: path.join(dir, 'messages.csv') } : {}),
    deliveries: path.join(dir, 'deliveries.csv'),
    samples: path.join(dir, 'samples.csv'),
    reasons: path.join(dir, 'reasons.csv'),
    report: path.join(dir, 'report.html'),
    ...(result.distributions.some((d) => d.windows) ? { windows: path.join(dir, 'windows.csv') } : {})
  }
  try {
    await mkdir(dir, { recursive: true })
    await writeFile(files.result, `${JSON.stringify(result, null, 1)}\n`)
    if (files.messages) await writeFile(files.messages, messagesCsv(result.distributions))
    await writeFile(files.deliveries, deliveriesCsv(result.distributions))
    await writeFile(files.samples, samplesCsv(result.distributions))
    await writeFile(files.reasons, reasonsCsv(result.distributions))
    if (files.windows) await writeFile(files.windows, windowsCsv(result.distributions))
    await writeFile(files.report, buildReport(result, { generatedAt: Date.now(), live }))
  } catch (error) {
    throw new IoswarmError(CODES.INPUT, `cannot write the results to ${dir}: ${/** @type {Error} */ (error).message}`, { cause: error })
  }
  return files
}
