/**
 * `ioswarm broadcast`: fire rounds of messages through the app server.
 */
import { progressWriter, stopOnSignals } from '../lib/cli-run.js'
import { formatMs } from '../lib/format.js'
import { parseDurationMs } from '../lib/options.js'
import { DEFAULT_EVENT } from '../lib/protocol.js'
import { estimateClockOffset } from '../lib/clock-offset.js'
import { invalidOption } from '../lib/errors.js'
import { createCollector, formatRoundLine, waitForRound } from '../results/index.js'
import { DEFAULT_ROUNDS, runBroadcast } from './index.js'

/** @type {import('yargs').CommandModule<{}, any>} */
export const broadcastCommand = {
  command: 'broadcast',
  describe: 'Fire rounds of broadcast messages through the app server',
  builder: (y) => y
    .usage('$0 broadcast --url URL --token T [--rounds 10x5000,10x2000,10x1000]\n\nSends each message at its scheduled time (round start + n × interval), whatever the previous request is doing. Each message carries {id: "<round>.<seq>", round, seq, sentAt, payload}.')
    .option('url', { alias: 'u', type: 'string', default: 'http://localhost:3000', describe: 'App server URL' })
    .option('token', { type: 'string', describe: 'Broadcast token (or IOSWARM_TOKEN)' })
    .option('event', { type: 'string', default: DEFAULT_EVENT, describe: 'Event to broadcast on' })
    .option('size', { type: 'string', default: '0', describe: 'Payload filler size in bytes' })
    .option('rounds', { alias: 'r', type: 'string', default: DEFAULT_ROUNDS, describe: 'Rounds as COUNTxINTERVAL_MS,…: the default is the 2012 test: 10 messages 5 s apart, then 10 at 2 s, then 10 at 1 s' })
    .option('via', { type: 'string', default: 'http', choices: ['http', 'socket', 'redis-emitter'], describe: 'POST /broadcast, an emit on the admin namespace, or @socket.io/redis-emitter straight into the Redis of any server on the Redis adapter (needs --redis, no token)' })
    .option('redis', { type: 'string', describe: 'Redis URL for --via redis-emitter and for --run (or IOSWARM_REDIS)' })
    .option('run', { type: 'string', describe: 'With --redis: after each round, wait for the simulators of this run to report it and print the round\'s results' })
    .option('message-timeout', { type: 'string', default: '10s', describe: 'With --run: how long to wait for every simulator\'s reports of a round (plus 5 s)' })
    .option('message', { type: 'string', describe: 'Your own message shape, a JSON template: placeholders {{id}} {{round}} {{seq}} {{sentAt}} {{payload}} stand for values ("ts": {{sentAt}}) or sit in strings ("ref": "m-{{id}}")' })
    .option('json', { type: 'boolean', default: false, describe: 'Print the messages sent as one JSON object on stdout' })
    .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'Print nothing on stderr' })
    .example('$0 broadcast --token $TOKEN --rounds 3x1000', 'three messages, one a second')
    .example('$0 broadcast --via redis-emitter --redis redis://localhost:6379 --event score --message \'{"matchId":7,"ref":"{{id}}","ts":{{sentAt}}}\'', 'your own event shape, into a server on the Redis adapter'),
  handler: async (argv) => {
    if (argv.run && !argv.redis) throw invalidOption('--run', 'needs --redis: the collector the simulators of that run report to')
    const waitMs = parseDurationMs(argv.messageTimeout, '--message-timeout') + 5000
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
              : `${m.id.padEnd(6)} ${at}  sent${m.recipients === null ? '' : ` to ${m.recipients} clients`}, request ${formatMs(m.requestMs)}\n`)
          }
        },
        onRoundEnd: collector
          ? async (round, sent) => {
            const status = await waitForRound(collector, argv.run, { round, messageIds: sent.map((m) => m.id), timeoutMs: waitMs, signal: stop.signal })
            rounds.push({ round, result: status.round, complete: status.complete, simulators: status.simulators })
            if (!argv.quiet) process.stderr.write(`${formatRoundLine(round, status.round, status)}\n`)
          }
          : undefined
      })
      const failed = result.messages.filter((m) => m.error).length
      if (!argv.quiet) process.stderr.write(`ioswarm broadcast: ${result.messages.length} messages sent${failed ? `, ${failed} failed` : ''}\n`)
      if (argv.json) process.stdout.write(`${JSON.stringify(collector ? { ...result, clock, rounds } : result)}\n`)
    } finally {
      stop.dispose()
      await collector?.close()
    }
  }
}
