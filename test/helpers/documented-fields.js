/**
 * The result's documented fields, read from the JSDoc typedefs of lib/schema/ (result-schema.js
 * is the entry docs/results.md points readers to; it re-exports the types of the files beside
 * it), so a test can check a real result against them: every field not marked optional ([name])
 * is present, and fields whose type is another typedef of those files (or an array of one) are
 * walked in turn.
 */
import { readFileSync, readdirSync } from 'node:fs'

const SCHEMA_DIR = new URL('../../lib/schema/', import.meta.url)
/** The schema files whose typedefs describe a result (collector-keys.js holds key names, not types). */
const SCHEMA_FILES = readdirSync(SCHEMA_DIR).filter((f) => f.endsWith('-schema.js')).map((f) => new URL(f, SCHEMA_DIR))

/**
 * The `@typedef {object}` blocks of the schema file: name → its properties.
 * @returns {Map<string, { name: string, type: string, optional: boolean }[]>}
 */
export function documentedTypes () {
  const types = new Map()
  const text = SCHEMA_FILES.map((file) => readFileSync(file, 'utf8')).join('\n')
  for (const block of text.split('/**').slice(1)) {
    const name = /@typedef \{object\} (\w+)/.exec(block)?.[1]
    if (name === undefined) continue
    /** @type {{ name: string, type: string, optional: boolean }[]} */
    const properties = []
    for (const line of block.split('\n')) {
      const property = parseProperty(line)
      if (property !== null) properties.push(property)
    }
    types.set(name, properties)
  }
  return types
}

/**
 * Paths of the documented fields `value` lacks, walking nested typedefs (optional ones when present).
 * @param {unknown} value
 * @param {string} typeName a `@typedef {object}` of lib/schema/
 * @returns {string[]} such as `clients.reconnects` or `messages[1].duplicates`; empty when every field is there
 */
export function missingDocumentedFields (value, typeName) {
  const types = documentedTypes()
  if (!types.has(typeName)) throw new Error(`no @typedef {object} ${typeName} in ${SCHEMA_DIR.pathname}*-schema.js`)
  /** @type {string[]} */
  const missing = []
  /** @param {unknown} v @param {string} type @param {string} path */
  const walk = (v, type, path) => {
    const properties = types.get(type) ?? []
    const record = /** @type {Record<string, unknown>} */ (v)
    for (const p of properties) {
      const at = path === '' ? p.name : `${path}.${p.name}`
      if (!(p.name in record)) {
        if (!p.optional) missing.push(at)
        continue
      }
      const inner = record[p.name]
      const element = /^(\w+)\[\]$/.exec(p.type)?.[1]
      if (element !== undefined && types.has(element) && Array.isArray(inner)) inner.forEach((e, k) => walk(e, element, `${at}[${k}]`))
      else if (types.has(p.type) && inner !== null && typeof inner === 'object') walk(inner, p.type, at)
    }
  }
  walk(value, typeName, '')
  return missing
}

/**
 * One `@property {type} name` or `@property {type} [name]` line; the type may hold braces of its own.
 * @param {string} line
 * @returns {{ name: string, type: string, optional: boolean } | null}
 */
function parseProperty (line) {
  const start = line.indexOf('@property {')
  if (start === -1) return null
  let depth = 0
  let end = start + '@property '.length
  for (; end < line.length; end++) {
    if (line[end] === '{') depth++
    else if (line[end] === '}' && --depth === 0) break
  }
  const found = /^ (\[?)(\w+)/.exec(line.slice(end + 1))
  if (found === null) return null
  return { type: line.slice(start + '@property {'.length, end), optional: found[1] === '[', name: found[2] }
}
