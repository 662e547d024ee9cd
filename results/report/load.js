/**
 * Reads a result file for a report and checks it is a result this version can read (a run, a
 * simulate or a capacity result), failing with a message that names the file and what is
 * wrong (exit 2), never with a TypeError from deep inside a chart.
 */
import { readFile } from 'node:fs/promises'
import { CODES, IoswarmError } from '../../lib/errors.js'
import { SCHEMA_VERSION } from '../../lib/schema/result-schema.js'
import { RESULT_KINDS, resultKind, toReportable } from './kinds.js'

/** Fields of a distribution that reports walk as arrays. */
const DISTRIBUTION_ARRAYS = ['simulatorList', 'rounds', 'messages', 'timeline', 'health', 'server']

/**
 * Reads a run result.json (the run's own reader: other kinds are refused).
 * @param {string} path
 * @returns {Promise<import('../../lib/schema/result-schema.js').RunResult>}
 */
export async function readRunResult (path) {
  return checkRunResult(await readJson(path), path)
}

/**
 * Reads any result a report reads, its kind decided once here.
 * @param {string} path
 * @returns {Promise<import('./kinds.js').Reportable>}
 */
export async function readResult (path) {
  return checkResult(await readJson(path), path)
}

/**
 * Checks a parsed result of any kind a report reads and returns it as a report reads it.
 * @param {unknown} value
 * @param {string} path for messages
 * @returns {import('./kinds.js').Reportable}
 */
export function checkResult (value, path) {
  const fail = (/** @type {string} */ problem) => new IoswarmError(CODES.INPUT, `${path} ${problem}`)
  if (!isObject(value)) throw fail('is not an ioswarm result: expected a JSON object')
  const kind = resultKind(value)
  if (kind === null) {
    throw fail(`is not an ioswarm result: "kind" is ${JSON.stringify(value.kind)}, expected one of ${RESULT_KINDS.map((k) => `"${k}"`).join(', ')}`)
  }
  checkVersion(value, fail)
  if (kind === 'run') return toReportable(checkRunResult(value, path))
  for (const field of ['tool', 'host', 'options']) {
    if (!isObject(value[field])) throw fail(`has no "${field}" object`)
  }
  const arrays = kind === 'capacity' ? ['steps', 'slo', 'advice'] : ['messages', 'timeline']
  for (const field of arrays) {
    if (!Array.isArray(value[field])) throw fail(`has no "${field}" array`)
  }
  if (kind === 'capacity') {
    if (!isObject(value.run) || !isObject(value.swarm) || !isObject(value.target)) throw fail('has no "run", "swarm" or "target" object')
    return toReportable(/** @type {import('../../lib/schema/capacity-schema.js').CapacityResult} */ (/** @type {unknown} */ (value)))
  }
  if (!isObject(value.clients) || !isObject(value.clients.connectTime)) throw fail('has no "clients" object with its connectTime')
  if (!isObject(value.health) || !Array.isArray(value.health.samples) || !isObject(value.health.summary)) {
    throw fail('has no "health" object with samples and a summary')
  }
  if (!isObject(value.clock)) throw fail('has no "clock" object')
  return toReportable(/** @type {import('../../lib/schema/result-schema.js').SimResult} */ (/** @type {unknown} */ (value)))
}

/**
 * @param {string} path
 * @returns {Promise<unknown>}
 */
async function readJson (path) {
  let text
  try {
    text = await readFile(path, 'utf8')
  } catch (error) {
    const err = /** @type {NodeJS.ErrnoException} */ (error)
    const why = err.code === 'ENOENT' ? 'no such file' : err.code === 'EISDIR' ? 'it is a directory' : err.message
    throw new IoswarmError(CODES.INPUT, `cannot read ${path}: ${why}`, { cause: error })
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new IoswarmError(CODES.INPUT, `${path} is not valid JSON: ${jsonErrorAt(text, /** @type {Error} */ (error).message)}`, { cause: error })
  }
}

/**
 * @param {Record<string, any>} value
 * @param {(problem: string) => Error} fail
 */
function checkVersion (value, fail) {
  if (value.schemaVersion === SCHEMA_VERSION) return
  const v = value.schemaVersion
  const hint = typeof v === 'number' && v > SCHEMA_VERSION ? 'it was written by a newer ioswarm' : 'it was written by an older or unknown ioswarm'
  throw fail(`has schemaVersion ${JSON.stringify(v)}, this ioswarm reads schemaVersion ${SCHEMA_VERSION}: ${hint}`)
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
 * @returns {import('../../lib/schema/result-schema.js').RunResult}
 */
export function checkRunResult (value, path) {
  const fail = (/** @type {string} */ problem) => new IoswarmError(CODES.INPUT, `${path} ${problem}`)
  if (!isObject(value)) throw fail('is not an ioswarm result: expected a JSON object')
  if (value.kind === 'simulator') throw fail('is a simulator result (ioswarm simulate --json), not a run result: read it with readResult')
  if (value.kind !== 'run') throw fail(`is not an ioswarm run result: "kind" is ${JSON.stringify(value.kind)}, expected "run"`)
  checkVersion(value, fail)
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
    if (b !== undefined && (!isObject(b) || !Array.isArray(b.rows) || !Array.isArray(b.namespaces) || !isObject(b.total))) {
      throw fail(`distributions[${i}].deliveries is not a delivery breakdown (rows, namespaces, total)`)
    }
    if (d.scenario !== undefined && !isObject(d.scenario)) throw fail(`distributions[${i}].scenario is not an object`)
    if (d.clients.namespaces !== undefined && !Array.isArray(d.clients.namespaces)) throw fail(`distributions[${i}].clients.namespaces is not an array`)
  })
  return /** @type {import('../../lib/schema/result-schema.js').RunResult} */ (/** @type {unknown} */ (value))
}

/**
 * @param {unknown} value
 * @returns {value is Record<string, any>}
 */
function isObject (value) {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
