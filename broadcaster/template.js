/**
 * `--message`: the user's own event shape, as a JSON template with placeholders
 * `{{id}} {{batch}} {{round}} {{seq}} {{sentAt}} {{payload}} {{room}}` (lib/input/template.js: a
 * placeholder standing alone where a JSON value goes becomes that value with its type,
 * `"ts": {{sentAt}}` → a number; inside a string it is written into the string,
 * `"ref": "msg-{{id}}"`). `{{room}}` is the message's target room: null as a value when it
 * goes to everyone, nothing inside a string. The template is checked once, when the
 * broadcast starts.
 */
import { makePayload } from '../lib/protocol.js'
import { compileJsonTemplate } from '../lib/input/template.js'

export const PLACEHOLDERS = Object.freeze(['id', 'batch', 'round', 'seq', 'sentAt', 'payload', 'room'])

/**
 * @typedef {{ id: string, batch: string, round: number, seq: number, sentAt: number, payload: string, room: string | null }} TemplateValues
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
  const template = compileJsonTemplate(text, { flag, names: PLACEHOLDERS })
  return {
    text,
    placeholders: template.placeholders,
    render: (values) => template.render((name) => values[/** @type {keyof TemplateValues} */ (name)])
  }
}

/**
 * The template filled in for one message of the schedule.
 * @param {MessageTemplate} template
 * @param {{ round: number, seq: number, size: number, batch?: string, room?: string | null }} message room: its target room
 * @param {number} sentAt wall-clock epoch ms
 */
export function renderMessage (template, { round, seq, size, batch = '', room = null }, sentAt) {
  const payload = template.placeholders.includes('payload') ? makePayload(size) : ''
  return template.render({ id: `${round}.${seq}`, batch, round, seq, sentAt, payload, room })
}
