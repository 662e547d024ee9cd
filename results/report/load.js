/**
 * Reads a result.json for a report and checks it is a run result this version can read,
 * failing with a message that names the file and what is wrong (exit 2), never with a
 * TypeError from deep inside a chart.
 */
import { readFile } from 'node:fs/promises'
import { CODES, IoswarmError } from '../../lib/errors.js'
import { SCHEMA_VERSION } from '../../lib/schema.js'

/** Fields of a distribution that reports walk as arrays. */
const DISTRIBUTION_ARRAYS = ['simulatorList', 'rounds', 'messages', 'timeline', 'health', 'server']

/**
 * @param {string} path
 * @returns {Promise<import('../../lib/schema.js').RunResult>}
 */
export async function readRunResult (path) {
  let text
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    const err = /** @type {NodeJS.ErrnoException} */ (error)
    const why = err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'it is a directory' : err.message
    throw new IoswarmError(CODES.INPUT, `cannot read ${path}: ${why}`, { cause: error })
  }
  let value
  try {
    value = JSON.parse(text)
  } catch (error) {
    throw new IoswarmError(CODES.INPUT, `${path} is not valid JSON: ${jsonErrorAt(text, /** @type {Error} */ (error).message)}`, { cause: error })
  }
  return checkRunResult(value, path)
}

/**
 * The parser's message, with line and column when it gives a position.
 * @param {string} text
 * @param {string} message
 */
function jsonErrorAt (text, message) {
  const match = /at position (\d+)/.exec(message)
  if (!match) return message
  const before = text.slice(0, Number(match[1]))
  const line = before.split('\n').length
  return `${message} (line ${line}, column ${before.length - before.lastIndexOf('\n')})`
}

/**
 * Checks that a parsed value is a run result of this schema version, with the arrays reports walk.
 * @param {unknown} value
 * @param {string} path for messages
 * @returns {import('../../lib/schema.js').RunResult}
 */
export function checkRunResult (value, path) {
  const fail = (/** @type {string} */ problem) => new IoswarmError(CODES.INPUT, `${path} ${problem}`)
  if (!isObject(value)) throw fail('is not an ioswarm result: expected a JSON object')
  if (value.kind === 'simulator') throw fail('is a simulator result (ioswarm simulate --json); report reads the result.json that ioswarm run writes')
  if (value.kind !== 'run') throw fail(`is not an ioswarm run result: "kind" is ${JSON.stringify(value.kind)}, expected "run"`)
  if (value.schemaVersion !== SCHEMA_VERSION) {
    const v = value.schemaVersion
    const hint = typeof v === 'number' && v > SCHEMA_VERSION ? 'it was written by a newer ioswarm' : 'it was written by an older or unknown ioswarm'
    throw fail(`has schemaVersion ${JSON.stringify(v)}, this ioswarm reads schemaVersion ${SCHEMA_VERSION}: ${hint}`)
  }
  for (const field of ['run', 'tool', 'host', 'target']) {
    if (!isObject(value[field])) throw fail(`has no "${field}" object`)
  }
  if (!Array.isArray(value.distributions)) throw fail('has no "distributions" array')
  value.distributions.forEach((d, i) => {
    if (!isObject(d)) throw fail(`distributions[${i}] is not an object`)
    for (const field of DISTRIBUTION_ARRAYS) {
      if (!Array.isArray(d[field])) throw fail(`distributions[${i}].${field} is not an array`)
    }
    if (!isObject(d.clients)) throw fail(`distributions[${i}].clients is not an object`)
    if (!isObject(d.connectTime) || !Array.isArray(d.connectTime.curve)) throw fail(`distributions[${i}].connectTime.curve is not an array`)
    // Absent from older results; when present, the shape the tables read.
    const b = d.deliveries
    if (b !== undefined && (!isObject(b) || !Array.isArray(b.rows) || !Array.isArray(b.namespaces) || !isObject(b.total))) throw fail(`distributions[${i}].deliveries is not a delivery breakdown (rows, namespaces, total)`)
    if (d.scenario !== undefined && !isObject(d.scenario)) throw fail(`distributions[${i}].scenario is not an object`)
    if (d.clients.namespaces !== undefined && !Array.isArray(d.clients.namespaces)) throw fail(`distributions[${i}].clients.namespaces is not an array`)
  })
  return /** @type {import('../../lib/schema.js').RunResult} */ (/** @type {unknown} */ (value))
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, any>}
 */
function isObject (value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
