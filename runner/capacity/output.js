/**
 * Writes a capacity search's files: result.json, steps.csv and report.html.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { CODES, IoswarmError } from '../../lib/errors.js'
import { buildCapacityReport, capacityStepsCsv } from '../../results/index.js'

/**
 * @param {string} dir
 * @param {import('../../lib/schema/capacity-schema.js').CapacityResult} result
 * @param {{ live?: import('../../results/report/live.js').LiveEvents | null }} [opts] live: the dashboard's stream, for the report
 * @returns {Promise<Record<string, string>>} the paths written, by kind
 */
export async function writeCapacityFiles (dir, result, { live = null } = {}) {
  const files = {
    result: path.join(dir, 'result.json'),
    steps: path.join(dir, 'steps.csv'),
    report: path.join(dir, 'report.html')
  }
  try {
    await mkdir(dir, { recursive: true })
    await writeFile(files.result, `${JSON.stringify(result, null, 1)}\n`)
    await writeFile(files.steps, capacityStepsCsv(result))
    await writeFile(files.report, buildCapacityReport(result, { generatedAt: Date.now(), live }))
  } catch (error) {
    throw new IoswarmError(CODES.INPUT, `cannot write the results to ${dir}: ${/** @type {Error} */ (error).message}`, { cause: error })
  }
  return files
}
