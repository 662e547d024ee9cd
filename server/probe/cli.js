/**
 * `ioswarm probe --pid PID`: samples any process from outside (/proc) and reports to the
 * collector, for servers not written in Node. Stops when the process exits.
 */
import os from 'node:os'
import { progressWriter, stopOnSignals } from '../../lib/cli-run.js'
import { formatBytes } from '../../lib/text/format.js'
import { invalidOption } from '../../lib/errors.js'
import { declareOptions, parseOptions } from '../../lib/cli-options/index.js'
import { COMMAND_LINES } from '../../lib/cli-options/commands.js'
import { runProcessProbe } from './proc.js'

const ID_PATTERN = /^[A-Za-z0-9._-]{1,128}$/

/** What `--help` says first: the command line, then what it does. */
const USAGE = [
  '$0 probe --pid PID --redis URL --run RUN_ID [--id ID]',
  'Every second: CPU (% of one core, from /proc/PID/stat), RSS, and the process\'s established TCP connections (its socket fds matched in /proc/PID/net/tcp and tcp6), written to the run\'s server samples in Redis. Event-loop figures and transports cannot be seen from outside: they are left empty. Linux only; stops when the process exits. For a Node server, `import { attachProbe } from \'ioswarm/probe\'` sees more.'
].join('\n\n')

/** @type {import('yargs').CommandModule<{}, any>} */
export const probeCommand = {
  ...COMMAND_LINES.probe,
  builder: (y) => declareOptions(y
    .usage(USAGE), 'probe'),
  handler: async (args) => {
    const argv = parseOptions('probe', args)
    const pid = /** @type {number} */ (argv.pid)
    const serverId = argv.id ? String(argv.id) : `proc-${os.hostname().replace(/[^A-Za-z0-9._-]/g, '-').slice(0, 80)}-${pid}`
    for (const [flag, value] of [['--run', String(argv.run)], ['--id', serverId]]) {
      if (!ID_PATTERN.test(value)) throw invalidOption(flag, `must be 1 to 128 characters of A-Z a-z 0-9 . _ -, got ${JSON.stringify(value)}`)
    }
    const intervalMs = /** @type {number} */ (argv.interval)
    if (intervalMs < 100) throw invalidOption('--interval', `must be at least 100ms, got ${intervalMs} ms`)
    const stop = stopOnSignals('ioswarm probe')
    const progress = progressWriter({ quiet: argv.quiet })
    let failures = 0
    try {
      const result = await runProcessProbe({ pid, redisUrl: String(argv.redis), runId: String(argv.run), serverId, intervalMs }, {
        signal: stop.signal,
        onSample: (s) => progress.update(`ioswarm probe ${serverId}: cpu ${s.cpuPct}%, rss ${formatBytes(s.rssBytes)}, ${s.connected} connections`),
        onError: (error) => {
          if (failures++ === 0) process.stderr.write(`ioswarm probe: cannot report a sample (further failures counted): ${error.message}\n`)
        }
      })
      progress.done()
      const lost = result.lost.dropped + result.lost.failed
      const why = result.exited ? `process ${pid} exited` : 'stopped'
      const sent = `${result.samples} samples of pid ${pid} sent to run ${argv.run} as ${serverId}${lost ? ` (${lost} lost)` : ''}`
      if (!argv.quiet || result.exited) process.stderr.write(`ioswarm probe: ${why}; ${sent}\n`)
    } finally {
      progress.done()
      stop.dispose()
    }
  }
}
