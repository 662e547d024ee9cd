/**
 * `--feeder FILE`: rows of per-client data (user names, tokens, rooms) that templates read as
 * `{{row.FIELD}}`. Client `i` (its index in the whole run) gets row `i mod rows`, so every
 * simulator takes its own slice by the global index and no two clients of a run share a row
 * while there are rows enough.
 *
 * A CSV file with a header row (RFC 4180, read by csv-parse), or JSON lines (one object per
 * line; `.jsonl`, `.ndjson`, or any file whose first character is `{`).
 */
import { readFileSync, statSync } from 'node:fs'
import { invalidOption } from '../errors.js'
import { onFirstUse } from '../lazy-require.js'

/** The CSV parser, on the first CSV feeder. */
const csv = /** @type {() => typeof import('csv-parse/sync')} */ (onFirstUse('csv-parse/sync'))

/** Largest feeder file read (each simulator holds it whole). */
const MAX_FEEDER_BYTES = 256 * 1024 * 1024
/** Most rows in a feeder. */
const MAX_FEEDER_ROWS = 10_000_000

/**
 * @typedef {object} Feeder
 * @property {string} path
 * @property {string[]} fields
 * @property {Record<string, unknown>[]} rows
 */

/**
 * Reads and checks a feeder file; errors name `flag` and say what is wrong where.
 * @param {string} path
 * @param {string} [flag]
 * @returns {Feeder}
 */
export function loadFeeder (path, flag = '--feeder') {
  let size
  try {
    size = statSync(path).size
  } catch (error) {
    throw invalidOption(flag, `cannot read ${JSON.stringify(path)}: ${/** @type {Error} */ (error).message}`)
  }
  if (size > MAX_FEEDER_BYTES) throw invalidOption(flag, `${path} has ${size} bytes; at most ${MAX_FEEDER_BYTES} (256 MiB) are read`)
  const text = readFileSync(path, 'utf8')
  const jsonLines = /\.(jsonl|ndjson)$/i.test(path) || text.trimStart().startsWith('{')
  const rows = jsonLines ? parseJsonLines(text, path, flag) : parseCsvRows(text, path, flag)
  if (rows.length === 0) throw invalidOption(flag, `${path} has no rows${jsonLines ? '' : ' (a CSV feeder needs a header row and at least one row)'}`)
  if (rows.length > MAX_FEEDER_ROWS) throw invalidOption(flag, `${path} has ${rows.length} rows; at most ${MAX_FEEDER_ROWS}`)
  /** @type {Set<string>} */
  const fields = new Set()
  for (const row of rows) for (const key of Object.keys(row)) fields.add(key)
  return { path, fields: [...fields], rows }
}

/**
 * @param {string} text
 * @param {string} path
 * @param {string} flag
 * @returns {Record<string, unknown>[]}
 */
function parseCsvRows (text, path, flag) {
  try {
    return csv().parse(text, { columns: true, skip_empty_lines: true, bom: true, trim: false })
  } catch (error) {
    throw invalidOption(flag, `${path} is not a CSV file with a header row: ${/** @type {Error} */ (error).message}`)
  }
}

/**
 * @param {string} text
 * @param {string} path
 * @param {string} flag
 * @returns {Record<string, unknown>[]}
 */
function parseJsonLines (text, path, flag) {
  /** @type {Record<string, unknown>[]} */
  const rows = []
  const lines = text.split('\n')
  for (let n = 0; n < lines.length; n++) {
    const line = lines[n].trim()
    if (line === '') continue
    let row
    try {
      row = JSON.parse(line)
    } catch (error) {
      throw invalidOption(flag, `${path} line ${n + 1} is not JSON: ${/** @type {Error} */ (error).message}`)
    }
    if (row === null || typeof row !== 'object' || Array.isArray(row)) {
      throw invalidOption(flag, `${path} line ${n + 1} must be a JSON object, got ${line.slice(0, 40)}`)
    }
    rows.push(row)
  }
  return rows
}
