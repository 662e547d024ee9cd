/**
 * `--message`: the user's own event shape, as a JSON template with placeholders
 * `{{id}} {{batch}} {{round}} {{seq}} {{sentAt}} {{payload}}`. A placeholder standing alone where a
 * JSON value goes becomes that value with its type (`"ts": {{sentAt}}` → a number); inside
 * a string it is written into the string (`"ref": "msg-{{id}}"`). The template is checked
 * once, when the broadcast starts.
 */
import { invalidOption } from '../lib/errors.js'
import { makePayload } from '../lib/protocol.js'

export const PLACEHOLDERS = Object.freeze(['id', 'batch', 'round', 'seq', 'sentAt', 'payload'])

// Private-use characters mark placeholders in the parsed tree: one pair inside strings,
// another for a whole value.
const IN_STRING = ['\uE000', '\uE001']
const AS_VALUE = ['\uE002', '\uE003']
const MARK = /\uE000(\w+)\uE001/g

/**
 * @typedef {{ id: string, batch: string, round: number, seq: number, sentAt: number, payload: string }} TemplateValues
 * @typedef {{ text: string, placeholders: string[], render: (values: TemplateValues) => unknown }} MessageTemplate
 */

/**
 * Checks a template; throws a usage error naming `flag` when it is not JSON or names an
 * unknown placeholder.
 * @param {string} text
 * @param {string} [flag]
 * @returns {MessageTemplate}
 */
export function parseMessageTemplate (text, flag = '--message') {
  const allowed = PLACEHOLDERS.map((p) => `{{${p}}}`).join(' ')
  /** @type {string[]} */
  const used = []
  let marked = ''
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const placeholder = /^\{\{\s*(\w+)\s*\}\}/.exec(text.slice(i, i + 40))
    if (placeholder) {
      const name = placeholder[1]
      if (!PLACEHOLDERS.includes(name)) throw invalidOption(flag, `has an unknown placeholder {{${name}}}: use ${allowed}`)
      used.push(name)
      marked += inString ? `${IN_STRING[0]}${name}${IN_STRING[1]}` : `"${AS_VALUE[0]}${name}${AS_VALUE[1]}"`
      i += placeholder[0].length - 1
      continue
    }
    const ch = text[i]
    marked += ch
    if (inString && ch === '\\') {
      marked += text[++i] ?? ''
    } else if (ch === '"') {
      inString = !inString
    }
  }
  let tree
  try {
    tree = JSON.parse(marked)
  } catch (error) {
    throw invalidOption(flag, `must be a JSON template (placeholders ${allowed} stand for values or sit inside strings): ${/** @type {Error} */ (error).message}`)
  }
  return { text, placeholders: [...new Set(used)], render: (values) => fill(tree, values) }
}

/**
 * The template filled in for one message of the schedule.
 * @param {MessageTemplate} template
 * @param {{ round: number, seq: number, size: number, batch?: string }} message
 * @param {number} sentAt wall-clock epoch ms
 */
export function renderMessage (template, { round, seq, size, batch = '' }, sentAt) {
  const payload = template.placeholders.includes('payload') ? makePayload(size) : ''
  return template.render({ id: `${round}.${seq}`, batch, round, seq, sentAt, payload })
}

/**
 * @param {unknown} node
 * @param {TemplateValues} values
 * @returns {unknown}
 */
function fill (node, values) {
  if (typeof node === 'string') {
    if (node.length > 2 && node[0] === AS_VALUE[0] && node.at(-1) === AS_VALUE[1]) return values[/** @type {keyof TemplateValues} */ (node.slice(1, -1))]
    return node.includes(IN_STRING[0]) ? node.replace(MARK, (_, name) => String(values[/** @type {keyof TemplateValues} */ (name)])) : node
  }
  if (Array.isArray(node)) return node.map((item) => fill(item, values))
  if (node !== null && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node).map(([key, value]) => [(fill(key, values)), fill(value, values)]))
  }
  return node
}
