/**
 * Options of `ioswarm broadcast` that no other command has.
 */

/** @type {import('./index.js').OptionDef[]} */
export const BROADCAST_OPTIONS = [
  {
    name: 'url',
    alias: 'u',
    type: 'string',
    default: 'http://localhost:3000',
    commands: ['broadcast'],
    describe: 'App server URL'
  },
  {
    name: 'message',
    type: 'string',
    commands: ['broadcast'],
    describe: 'Your own message shape, a JSON template: placeholders {{id}} {{batch}} {{round}} {{seq}} {{sentAt}} {{payload}} stand for values (put {{batch}} in your id when several broadcasters may run at once) ("ts": {{sentAt}}) or sit in strings ("ref": "m-{{id}}")'
  }
]
