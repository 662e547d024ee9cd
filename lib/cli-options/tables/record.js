/**
 * Options of `ioswarm record`: a recorded browser session turned into a scenario module
 * (its `--out` is the row shared with run, report and capacity).
 */
import { defineOptions } from '../define.js'

/** @param {unknown} v */
const optionalText = (v) => (v === undefined || v === null || v === '' ? null : String(v))

export const RECORD_OPTIONS = defineOptions([
  {
    name: 'har',
    group: 'Traffic',
    type: 'string',
    commands: ['record'],
    required: ['record'],
    describe: 'The recorded session: a HAR file exported from the browser\'s Network panel (Chrome keeps WebSocket frames)',
    parse: optionalText
  },
  {
    name: 'feeder-out',
    group: 'Output and CI',
    type: 'string',
    commands: ['record'],
    defaultText: 'beside --out: NAME.users.csv',
    describe: 'Where to write the feeder CSV of per-user values (tokens, user names, passwords) found in the recording',
    parse: optionalText
  }
])
