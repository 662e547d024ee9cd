/**
 * Templates with `{{name}}` placeholders, checked once when an option is read and rendered
 * many times (per client, per emit, per message). Two kinds:
 *
 * - JSON templates (`--auth`, `--join`, `--emit`, broadcast `--message`): a placeholder that
 *   stands alone where a JSON value goes becomes that value with its type (`"n": {{i}}` → a
 *   number); inside a string it is written into the string (`"user": "u-{{i}}"`).
 * - Text templates (`--query` values, `--header` values, `--room`): every placeholder is
 *   written into the text.
 *
 * Names are words (`i`, `sentAt`), `row.FIELD` (a field of the feeder's row) where the caller
 * allows rows, or `env.NAME` (a variable of the simulator's environment, read when rendered:
 * a secret stays off command lines and out of result files) where it allows the environment. An unknown name, a feeder field that does not exist or a template that
 * is not JSON is a usage error naming the flag.
 */
import { invalidOption } from '../errors.js'

// Private-use characters mark placeholders in the parsed tree: one pair inside strings,
// another for a whole value.
const IN_STRING = ['\uE000', '\uE001']
const AS_VALUE = ['\uE002', '\uE003']
const MARK = /\uE000([\w.-]+)\uE001/g
const PLACEHOLDER = /^\{\{\s*([A-Za-z_][\w]*(?:\.[\w-]+)?)\s*\}\}/

/**
 * @typedef {(name: string) => unknown} Lookup a placeholder's value by name ('i', 'row.user')
 * @typedef {object} Template
 * @property {string} text the template as given
 * @property {string[]} placeholders the names it uses, once each
 * @property {(lookup: Lookup) => unknown} render
 * @typedef {object} TemplateRules
 * @property {string} flag named in errors: '--auth'
 * @property {readonly string[]} names the placeholders allowed (without row.*)
 * @property {readonly string[] | null} [rowFields] the feeder's fields, when `{{row.FIELD}}` is allowed; null = no feeder
 * @property {boolean} [env] `{{env.NAME}}` is allowed
 * @property {boolean} [login] `{{login.FIELD}}` (a field of the client's --login answer) is allowed; false: a simulator template
 *   that could have it with --login (the error says so)
 */

/**
 * Checks one placeholder name against the rules.
 * @param {string} name
 * @param {TemplateRules} rules
 */
function checkName (name, rules) {
  const allowed = [...rules.names.map((p) => `{{${p}}}`), ...(rules.rowFields === undefined ? [] : ['{{row.FIELD}}']), ...(rules.env ? ['{{env.NAME}}'] : []),
    ...(rules.login ? ['{{login.FIELD}}'] : [])].join(' ')
  if (name.startsWith('login.') && rules.login !== undefined) {
    const use = rules.names.length ? `: use ${allowed}` : ''
    if (!rules.login) throw invalidOption(rules.flag, `has a placeholder {{${name}}}, which needs --login (or a --scenario with a login hook)${use}`)
    return
  }
  if (name.startsWith('env.')) {
    if (!rules.env) throw invalidOption(rules.flag, `has a placeholder {{${name}}}, but the environment is not read here: use ${allowed}`)
    if (!/^env\.[A-Za-z_][A-Za-z0-9_]*$/.test(name)) throw invalidOption(rules.flag, `has {{${name}}}: an environment variable's name is letters, digits and _`)
    return
  }
  if (name.startsWith('row.')) {
    if (rules.rowFields === undefined) throw invalidOption(rules.flag, `has a placeholder {{${name}}}, but rows are not allowed here: use ${allowed}`)
    if (rules.rowFields === null) {
      throw invalidOption(rules.flag, `uses {{${name}}}, which needs a feeder: add --feeder FILE (CSV with a header row, or JSON lines)`)
    }
    const field = name.slice(4)
    if (!rules.rowFields.includes(field)) {
      throw invalidOption(rules.flag, `uses {{${name}}}, but the feeder has no field "${field}" (its fields: ${rules.rowFields.join(', ') || 'none'})`)
    }
    return
  }
  if (!rules.names.includes(name)) throw invalidOption(rules.flag, `has an unknown placeholder {{${name}}}: use ${allowed}`)
}

/**
 * A JSON template.
 * @param {string} text
 * @param {TemplateRules} rules
 * @returns {Template}
 */
export function compileJsonTemplate (text, rules) {
  /** @type {string[]} */
  const used = []
  let marked = ''
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const placeholder = text[i] === '{' ? PLACEHOLDER.exec(text.slice(i, i + 80)) : null
    if (placeholder) {
      const name = placeholder[1]
      checkName(name, rules)
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
    const names = rules.names.map((p) => `{{${p}}}`).join(' ')
    const why = /** @type {Error} */ (error).message
    throw invalidOption(rules.flag, `must be a JSON template (placeholders ${names} stand for values or sit inside strings): ${why}`)
  }
  return { text, placeholders: [...new Set(used)], render: compileNode(tree) }
}

/**
 * A text template: every placeholder written into the text.
 * @param {string} text
 * @param {TemplateRules} rules
 * @returns {Template}
 */
export function compileTextTemplate (text, rules) {
  /** @type {string[]} */
  const used = []
  const marked = text.replace(/\{\{\s*([^{}]*?)\s*\}\}/g, (whole, /** @type {string} */ name) => {
    if (!PLACEHOLDER.test(`{{${name}}}`)) throw invalidOption(rules.flag, `has a malformed placeholder ${whole}`)
    checkName(name, rules)
    used.push(name)
    return `${IN_STRING[0]}${name}${IN_STRING[1]}`
  })
  return { text, placeholders: [...new Set(used)], render: compileNode(marked) }
}

/**
 * A render function for a parsed node: constant parts are built once and shared (callers
 * treat rendered values as read-only), only nodes with placeholders are built per call.
 * @param {unknown} node
 * @returns {(lookup: Lookup) => unknown}
 */
function compileNode (node) {
  if (typeof node === 'string') {
    if (node.length > 2 && node[0] === AS_VALUE[0] && node.at(-1) === AS_VALUE[1]) {
      const name = node.slice(1, -1)
      return (lookup) => lookup(name)
    }
    if (!node.includes(IN_STRING[0])) return () => node
    // null (no value, such as the room of a broadcast to everyone) writes nothing.
    return (lookup) => node.replace(MARK, (_, name) => String(lookup(name) ?? ''))
  }
  if (Array.isArray(node)) {
    const items = node.map(compileNode)
    return (lookup) => items.map((item) => item(lookup))
  }
  if (node !== null && typeof node === 'object') {
    const entries = Object.entries(node).map(([key, value]) => [compileNode(key), compileNode(value)])
    return (lookup) => {
      /** @type {Record<string, unknown>} */
      const out = {}
      for (const [key, value] of entries) out[String(key(lookup))] = value(lookup)
      return out
    }
  }
  return () => node
}

/**
 * A message template that is JSON or text (`--send-on-open`): JSON when it starts with { or [
 * (rendered, then serialised), else text. Renders to the string to send.
 * @param {string} text
 * @param {TemplateRules} rules
 * @returns {Template & { json: boolean }}
 */
export function compileMessageTemplate (text, rules) {
  const trimmed = text.trim()
  const json = trimmed.startsWith('{') || trimmed.startsWith('[')
  const template = json ? compileJsonTemplate(trimmed, rules) : compileTextTemplate(text, rules)
  const render = json ? (/** @type {Lookup} */ lookup) => JSON.stringify(template.render(lookup)) : template.render
  return { ...template, render, json }
}

/**
 * `EVENT <json template>` (`--join`, `--emit`): the event name, then an optional JSON payload.
 * @param {string} text
 * @param {TemplateRules} rules
 * @returns {{ event: string, payload: Template | null }}
 */
export function compileEventTemplate (text, rules) {
  const match = /^\s*([^\s{[]+)\s*([\s\S]*)$/.exec(text)
  if (!match) throw invalidOption(rules.flag, `must be an event name, then an optional JSON template: 'join {"room":"{{room}}"}', got ${JSON.stringify(text)}`)
  const [, event, rest] = match
  if (event.length > 200) throw invalidOption(rules.flag, 'has an event name over 200 characters')
  return { event, payload: rest.trim() === '' ? null : compileJsonTemplate(rest.trim(), rules) }
}

/** Stands for every placeholder when an event call's name is checked: a name has none. */
const PROBE = '\uE010'

/**
 * An emit as `--join` and `--emit` take it, in either form, rendered to the event's arguments:
 * a JSON array, the event name first, then any number of arguments
 * (`["new message", "hi from {{i}}"]`: names with spaces, several arguments), or
 * `EVENT <json template>` (one argument, or none).
 * @param {string} text
 * @param {TemplateRules} rules
 * @returns {{ event: string, args: { placeholders: string[], render: (lookup: Lookup) => unknown[] } | null }}
 */
export function compileEventCall (text, rules) {
  if (!text.trimStart().startsWith('[')) {
    const { event, payload } = compileEventTemplate(text, rules)
    if (payload === null) return { event, args: null }
    return { event, args: { placeholders: payload.placeholders, render: (lookup) => [payload.render(lookup)] } }
  }
  const template = compileJsonTemplate(text.trim(), rules)
  const probe = /** @type {unknown[]} */ (template.render(() => PROBE))
  const event = probe[0]
  const usage = `must be a JSON array, the event name first, then its arguments: '["new message", "hi from {{i}}"]', got ${JSON.stringify(text)}`
  if (!Array.isArray(probe) || probe.length === 0) throw invalidOption(rules.flag, usage)
  if (typeof event !== 'string' || event === '' || event.includes(PROBE)) {
    throw invalidOption(rules.flag, `${usage}: the event name is a plain string (no placeholder)`)
  }
  if (event.length > 200) throw invalidOption(rules.flag, 'has an event name over 200 characters')
  if (probe.length === 1) return { event, args: null }
  return { event, args: { placeholders: template.placeholders, render: (lookup) => /** @type {unknown[]} */ (template.render(lookup)).slice(1) } }
}
