/**
 * `ioswarm record --har session.har --out app.mjs`: a recorded browser session turned into a
 * scenario module; prints what it found and what it could not translate.
 */
import { resolve } from 'node:path'
import { declareOptions, parseOptions } from '../lib/cli-options/index.js'
import { COMMAND_LINES } from '../lib/cli-options/commands.js'
import { formatRecordSummary, recordHar } from './index.js'

/** @type {import('yargs').CommandModule<{}, any>} */
export const recordCommand = {
  ...COMMAND_LINES.record,
  builder: (y) => declareOptions(y
    .usage('$0 record --har session.har --out app.mjs\n\nReads a HAR exported from the browser (Chrome keeps WebSocket frames; polling requests are read from any browser\'s HAR), ' +
      'finds the Socket.IO session, and writes a scenario module that replays it for every client, with a feeder CSV of the per-user values beside it. ' +
      'Guide: docs/recording.md'), 'record'),
  handler: async (args) => {
    const argv = parseOptions('record', args)
    const out = resolve(String(argv.out))
    const result = await recordHar({ har: resolve(String(argv.har)), out, feeder: argv.feederOut ? resolve(String(argv.feederOut)) : null })
    process.stderr.write(formatRecordSummary(result))
  }
}
