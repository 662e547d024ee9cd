/**
 * Options of `ioswarm record`: a recorded browser session turned into a scenario module
 * (its `--out` is the row shared with run, report and capacity).
 */
import { defineOptions } from '../define.js'
import { parseInteger } from '../../values/parsers.js'

/** @param {unknown} v */
const optionalText = (v) => (v === undefined || v === null || v === '' ? null : String(v))

export const RECORD_OPTIONS = defineOptions([
  {
    name: 'har',
    group: 'Traffic',
    type: 'string',
    commands: ['record'],
    describe: 'The recorded session: a HAR file exported from the browser\'s Network panel (Chrome keeps WebSocket frames)',
    details: 'The recorded session: a HAR file exported from the browser\'s Network panel (Chrome keeps WebSocket frames; Firefox keeps polling bodies only). ' +
      'Give --har, or --proxy with --target to record through the recording proxy',
    parse: optionalText
  },
  {
    name: 'proxy',
    group: 'Traffic',
    type: 'string',
    commands: ['record'],
    describe: 'Record through a reverse proxy on this port (0 = a free one) to --target; Ctrl-C writes the scenario',
    details: 'Record through a reverse proxy listening on this port (0 = a free port, printed) of --host (127.0.0.1 unless given): point the browser or app at it, ' +
      'use the app, then stop it with Ctrl-C (SIGINT or SIGTERM) to write the scenario. HTTP, long-polling and WebSocket pass through unchanged ' +
      '(only Host names the target); --ca and --insecure say which certificates of an https:// target to trust',
    parse: (v, flag) => (v === undefined || v === null || v === '' ? null : parseInteger(v, flag, { min: 0, max: 65535 }))
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
