/**
 * `ioswarm record --har session.har --out app.mjs`, or `ioswarm record --proxy PORT --target URL
 * --out app.mjs`: a recorded browser session (a HAR, or what passed through the recording proxy
 * until Ctrl-C) turned into a scenario module; prints what it found and what it could not translate.
 */
import { resolve } from 'node:path'
import { declareOptions, parseOptions } from '../lib/cli-options/index.js'
import { COMMAND_LINES } from '../lib/cli-options/commands.js'
import { invalidOption } from '../lib/errors.js'
import { progressWriter, stopOnSignals } from '../lib/cli-run.js'
import { tlsTrust } from '../lib/input/tls-trust.js'
import { formatRecordSummary, recordHar, recordProxy } from './index.js'

/** @type {import('yargs').CommandModule<{}, any>} */
export const recordCommand = {
  ...COMMAND_LINES.record,
  builder: (y) => declareOptions(y
    .usage('$0 record --har session.har --out app.mjs\n$0 record --proxy 8080 --target https://staging.app --out app.mjs\n\n' +
      'Reads a HAR exported from the browser (Chrome keeps WebSocket frames; polling requests are read from any browser\'s HAR), ' +
      'or records what a browser pointed at the recording proxy sends and receives until Ctrl-C; ' +
      'finds the Socket.IO session, and writes a scenario module that replays it for every client, with a feeder CSV of the per-user values beside it. ' +
      'Guide: docs/recording.md'), 'record'),
  handler: async (args) => {
    const argv = parseOptions('record', args)
    const out = resolve(String(argv.out))
    const feeder = argv.feederOut ? resolve(String(argv.feederOut)) : null
    if (argv.har !== null && argv.proxy !== null) throw invalidOption('--proxy', 'records through the proxy; --har reads a recording: give one of them')
    if (argv.har !== null) {
      process.stderr.write(formatRecordSummary(await recordHar({ har: resolve(String(argv.har)), out, feeder })))
      return
    }
    if (argv.proxy === null) throw invalidOption('--har', 'or --proxy is needed: --har session.har reads a recording, --proxy PORT --target URL records one')
    if (!argv.target) throw invalidOption('--target', 'is needed with --proxy: the app\'s URL (http://host:port or https://host) the proxy forwards to')
    const stop = stopOnSignals('record')
    const progress = progressWriter()
    /** @type {ReturnType<typeof setInterval> | undefined} */
    let ticker
    try {
      const result = await recordProxy({
        target: String(argv.target),
        port: argv.proxy,
        host: argv.host ?? null,
        out,
        feeder,
        trust: tlsTrust(argv),
        signal: stop.signal,
        onListening: (proxy) => {
          const how = `point the browser at it, use the app, then press Ctrl-C to write ${out}`
          process.stderr.write(`record: recording proxy on ${proxy.url} to ${String(argv.target)}: ${how}\n`)
          ticker = setInterval(() => {
            const c = proxy.counts()
            progress.update(`record: ${c.requests} request(s), ${c.webSockets} WebSocket(s) with ${c.frames} frame(s) so far`)
          }, 1000)
        }
      })
      progress.done()
      process.stderr.write(formatRecordSummary(result))
    } finally {
      clearInterval(ticker)
      stop.dispose()
    }
  }
}
