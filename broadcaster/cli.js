/**
 * `ioswarm broadcast`: fire rounds of messages through the app server.
 */
import { progressWriter, stopOnSignals } from '../lib/cli-run.js'
import { formatMs } from '../lib/text/format.js'
import { declareOptions, parseOptions } from '../lib/cli-options/index.js'
import { COMMAND_LINES } from '../lib/cli-options/commands.js'
import { estimateClockOffset } from '../lib/measure/clock-offset.js'
import { invalidOption } from '../lib/errors.js'
import { createCollector, formatPublishLine, formatRoundLine, waitForRound } from '../results/index.js'
import { runBroadcast } from './index.js'

/** What `--help` says first: the command line, then what it does. */
const USAGE = [
  '$0 broadcast --url URL --token T [--rounds 10x5000,10x2000,10x1000]',
  'Sends each message at its scheduled time (round start + n × interval), whatever the previous request is doing. Each message carries {id: "<round>.<seq>", batch, round, seq, sentAt, room, payload} (room only when sent to one: --rooms, --to).'
].join('\n\n')

/** @type {import('yargs').CommandModule<{}, any>} */
export const broadcastCommand = {
  ...COMMAND_LINES.broadcast,
  builder: (y) => declareOptions(y
    .usage(USAGE), 'broadcast')
    .example('$0 broadcast --token $TOKEN --rounds 3x1000', 'three messages, one a second')
    .example('$0 broadcast --publish \'POST http://localhost:8080/pub/news\' --message \'{"id":"{{id}}","ts":{{sentAt}}}\'',
      'each message an HTTP request to your own API')
    .example('$0 broadcast --token $TOKEN --rooms 4 --namespace /chat',
      'message k to room-{(k-1) mod 4} of /chat (simulate --rooms 4 puts client i in room-{i mod 4})')
    .example('$0 broadcast --via redis-emitter --redis redis://localhost:6379 --event score --message \'{"matchId":7,"ref":"{{id}}","ts":{{sentAt}}}\'',
      'your own event shape, into a server on the Redis adapter'),
  handler: async (args) => {
    const argv = { ...args, ...parseOptions('broadcast', args) }
    if (argv.run && !argv.redis) throw invalidOption('--run', 'needs --redis: the collector the simulators of that run report to')
    if (argv.rounds.length === 0) {
      throw invalidOption('--rounds', 'none is for `ioswarm run` (a test without a broadcaster); broadcast needs rounds such as 10x1000')
    }
    const waitMs = argv.messageTimeoutMs + 5000
    const collector = argv.run ? await createCollector({ redisUrl: argv.redis }) : null
    const clock = collector ? await estimateClockOffset(() => collector.time(), { reference: 'redis' }) : null
    if (clock && !argv.quiet) process.stderr.write(`clock offset to Redis: ${clock.offsetMs.toFixed(2)} ms ± ${clock.uncertaintyMs.toFixed(2)} ms\n`)
    /** @type {{ round: number, result: unknown, complete: boolean, simulators: number }[]} */
    const rounds = []
    const stop = stopOnSignals('ioswarm broadcast')
    const out = progressWriter({ quiet: argv.quiet, everyMs: 0 })
    try {
      const result = await runBroadcast(/** @type {import('./index.js').BroadcastOptions} */ (/** @type {unknown} */ (argv)), {
        signal: stop.signal,
        onMessage: (m) => {
          const at = new Date(m.requestedAt).toISOString().slice(11, 23)
          out.done()
          if (!argv.quiet) {
            process.stderr.write(m.error
              ? `${m.id.padEnd(6)} ${at}  FAILED: ${m.error}\n`
              : `${m.id.padEnd(6)} ${at}  sent${sentTo(m)}${m.status === null ? '' : ` (HTTP ${m.status})`}, request ${formatMs(m.requestMs)}\n`)
          }
        },
        onRoundEnd: collector
          ? async (round, sent) => {
            const status = await waitForRound(collector, /** @type {string} */ (argv.run), { round, sent, timeoutMs: waitMs, signal: stop.signal })
            rounds.push({ round, result: status.round, complete: status.complete, simulators: status.simulators })
            if (!argv.quiet) process.stderr.write(`${formatRoundLine(round, status.round, status)}\n`)
          }
          : undefined
      })
      const failed = result.messages.filter((m) => m.error).length
      if (!argv.quiet && result.publish) process.stderr.write(`${formatPublishLine(result.publish)}\n`)
      if (!argv.quiet) process.stderr.write(`ioswarm broadcast: ${result.messages.length} messages sent${failed ? `, ${failed} failed` : ''}\n`)
      if (argv.json) process.stdout.write(`${JSON.stringify(collector ? { ...result, clock, rounds } : result)}\n`)
    } finally {
      stop.dispose()
      await collector?.close()
    }
  }
}

/**
 * Where a message went, for its progress line: ` to 12 clients`, ` to room-3 (4 clients)`.
 * @param {{ room: string | null, recipients: number | null }} m
 */
function sentTo ({ room, recipients }) {
  if (room === null) return recipients === null ? '' : ` to ${recipients} clients`
  return ` to ${room}${recipients === null ? '' : ` (${recipients} clients)`}`
}
