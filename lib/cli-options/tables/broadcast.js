/**
 * Options of `ioswarm broadcast` that no other command has.
 */
import { invalidOption } from '../../errors.js'
import { parseInteger } from '../../values/parsers.js'
import { MAX_ROOM_NAME_LENGTH } from '../../protocol.js'
import { defineOptions } from '../define.js'

/** Most rooms `broadcast --rooms` goes round-robin over. */
export const MAX_BROADCAST_ROOMS = 1_000_000

/**
 * A room name: a string of 1 to MAX_ROOM_NAME_LENGTH characters.
 * @param {unknown} value
 * @param {string} flag
 */
export function parseRoomName (value, flag) {
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_ROOM_NAME_LENGTH) {
    throw invalidOption(flag, `must be a room name of 1 to ${MAX_ROOM_NAME_LENGTH} characters, got ${JSON.stringify(value)}`)
  }
  return value
}

export const BROADCAST_OPTIONS = defineOptions([
  {
    name: 'url',
    group: 'Target',
    alias: 'u',
    type: 'string',
    default: 'http://localhost:3000',
    commands: ['broadcast'],
    describe: 'App server URL'
  },
  {
    name: 'publish',
    group: 'Traffic',
    type: 'string',
    commands: ['broadcast', 'run', 'capacity'],
    describe: 'Publish each message by this HTTP request to your API: \'POST http://host/pub/{{room}}\' (no --token)',
    details: 'Publish each message by this HTTP request to your own API, \'POST http://host/pub/{{room}}\' (no --token): see docs/publish.md. ' +
      'METHOD is POST, PUT, PATCH, GET or DELETE. The URL and the body (--message, else ioswarm\'s own message shape) take the placeholders ' +
      '{{id}} {{seq}} {{round}} {{batch}} {{room}} {{sentAt}} {{payload}}; sentAt is read as the request leaves. Answers are counted by status; ' +
      'a first answer 401, 403 or 404 stops the rounds (exit 2). The requests\' own latency is reported apart from delivery.'
  },
  {
    name: 'publish-header',
    group: 'Traffic',
    type: 'string',
    array: true,
    commands: ['broadcast', 'run', 'capacity'],
    describe: 'A header of each --publish request, \'Name: value\' (repeatable; placeholders and {{env.NAME}})'
  },
  {
    name: 'publish-sign',
    group: 'Traffic',
    type: 'string',
    secret: true,
    commands: ['broadcast', 'run', 'capacity'],
    describe: 'Sign each --publish request: pusher:KEY:SECRET (Pusher\'s HTTP API and servers compatible with it)'
  },
  {
    name: 'message',
    group: 'Traffic',
    type: 'string',
    commands: ['broadcast', 'run', 'capacity'],
    describe: 'Your own message shape, a JSON template with {{id}} {{batch}} {{round}} {{seq}} {{sentAt}} {{room}} {{payload}}',
    details: 'Your own message shape, a JSON template: placeholders {{id}} {{batch}} {{round}} {{seq}} {{sentAt}} {{room}} {{payload}} stand for values (put {{batch}} in your id when several broadcasters may run at once) ("ts": {{sentAt}}) or sit in strings ("ref": "m-{{id}}")'
  },
  {
    name: 'rooms',
    group: 'Traffic',
    type: 'string',
    commands: ['broadcast'],
    describe: 'Send message k of a round to room-{(k-1) mod R}: round-robin over room-0 … room-{R-1} (the rooms of simulate --rooms R)',
    parse: (v, flag) => (v === undefined || v === null ? null : parseInteger(v, flag, { min: 1, max: MAX_BROADCAST_ROOMS }))
  },
  {
    name: 'to',
    group: 'Traffic',
    to: 'room',
    type: 'string',
    commands: ['broadcast'],
    describe: 'Send every message to this one room (--to room-3)',
    parse: (v, flag) => (v === undefined || v === null ? null : parseRoomName(String(v), flag))
  }
])
