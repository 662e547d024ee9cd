/**
 * Reads a `--config` file: JSON, or YAML for .yaml/.yml. A broken file is a usage error that
 * names the file and the line and column of the mistake (JSON.parse alone does not say where).
 */
import { readFileSync } from 'node:fs'
import { CODES, IoswarmError } from '../errors.js'
import { onFirstUse } from '../lazy-require.js'

/** The YAML parser, on the first --config file (every command line comes through here); yargs reads it synchronously. */
const yaml = /** @type {() => typeof import('yaml')} */ (onFirstUse('yaml'))

/**
 * @param {string} file
 * @returns {Record<string, unknown>} option names (flag names) to values
 */
export function loadConfigFile (file) {
  let text
  try {
    text = readFileSync(file, 'utf8')
  } catch (error) {
    const why = /** @type {NodeJS.ErrnoException} */ (error).code ?? /** @type {Error} */ (error).message
    throw new IoswarmError(CODES.INPUT, `--config: cannot read ${file} (${why})`)
  }
  const yaml = /\.ya?ml$/i.test(file)
  const value = yaml ? parseYaml(file, text) : parseJson(file, text)
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new IoswarmError(CODES.INPUT, `--config: ${file} must hold an object of options (flag names as keys)`)
  }
  return /** @type {Record<string, unknown>} */ (value)
}

/**
 * @param {string} file
 * @param {string} text
 */
function parseJson (file, text) {
  try {
    return JSON.parse(text)
  } catch (error) {
    // The YAML parser in JSON mode says where a JSON document goes wrong.
    const where = yaml().parseDocument(text, { schema: 'json' }).errors[0]?.linePos?.[0]
    const at = where ? `line ${where.line}, column ${where.col}: ` : ''
    const why = /** @type {Error} */ (error).message.split('\n')[0].replace(/, \.\.\.".*$/, '')
    throw new IoswarmError(CODES.INPUT, `--config: ${file} is not valid JSON: ${at}${why}`)
  }
}

/**
 * @param {string} file
 * @param {string} text
 */
function parseYaml (file, text) {
  const doc = yaml().parseDocument(text)
  const [error] = doc.errors
  if (error) {
    const where = error.linePos?.[0]
    const at = where ? `line ${where.line}, column ${where.col}: ` : ''
    throw new IoswarmError(CODES.INPUT, `--config: ${file} is not valid YAML: ${at}${error.message.split(' at line')[0]}`)
  }
  return doc.toJS()
}
