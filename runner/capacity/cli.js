/**
 * `ioswarm capacity`: how many clients the server holds at a service level, in one line.
 */
import path from 'node:path'
import { EXIT } from '../../lib/errors.js'
import { declareOptions } from '../../lib/cli-options/index.js'
import { COMMAND_LINES } from '../../lib/cli-options/commands.js'
import { runCapacity } from './index.js'
import { normalizeCapacityOptions } from './capacity-options.js'
import { writeCapacityFiles } from './output.js'
import { capacityWarnings } from './format.js'
import { testCommandHandler } from '../test-command.js'

/** Exit code of each outcome. */
const EXIT_BY_OUTCOME = Object.freeze({
  found: EXIT.OK,
  max: EXIT.OK,
  'failed-at-start': EXIT.THRESHOLD,
  inconclusive: EXIT.INCONCLUSIVE,
  stopped: EXIT.RUNTIME
})

/** The last words of capacity --help, a paragraph each. */
const EPILOG = [
  'How it searches: the first step opens --start clients; while steps pass, each has --growth times the clients of the last (up to --max), added to the running swarm (connected clients stay). After the first failing step it bisects between the last passing and the first failing step, closing or adding clients, until they are within --precision. Each step broadcasts --rounds and judges them with every --slo.',
  'Proof the answer is the server\'s: a failing step is inconclusive, not failed, when the simulators could have made the failure themselves: one was saturated by its own work (event-loop utilisation >= 90 % in any second); or a delay SLO failed and the simulators\' own time (the most CPU one spent draining a message, or the longest its event loop was held up) is >= 50 % of the delay measured, or more than the margin by which it failed; or a missing/connected SLO failed while an event loop stalled >= 1 s. So is a step this machine cannot hold (file descriptors, ports, memory: checked before each step). An inconclusive step is measured once more; if the simulators limit it again, the search stops and says which limit it hit and how to add simulators.',
  'Without rounds (--rounds none, or --target without --token): no broadcaster; the load is the clients\' own --emit/--scenario traffic and whatever the app sends by itself. Each step holds --step-duration once its clients are connected and is judged on the --window windows wholly inside that hold, merged over every simulator: delays and acks are the step\'s worst window (named in the verdict), as run --assert reads them; a step\'s windows merged would dilute a queue that builds up at its end. missing is summed over the windows; connected is the fewest connected at any point of the hold.',
  '--vary emit-rate: the search varies the messages a second --clients clients emit (--emit, spread over --emitters) instead of the clients; --start, --max and the answer are messages a second. Each step sends the new rate to the running simulators.',
  'SLO metrics (the --assert grammar): p50 p90 p99 max mean avg, abs.p50 … abs.max, missing, connected, failed; without rounds also ack.p50 ack.p90 ack.p99 ack.max. Without a connected SLO, every client of a step must connect.',
  'Exit codes: 0 found (or every step passed up to --max), 3 the SLO failed at --start, 4 inconclusive (the simulators limited a step), 1 runtime failure, 2 bad usage.'
].join('\n\n')

/**
 * The last words of capacity --help: how it searches, its SLO metrics and exit codes; with
 * --help-all also why an answer is the server's, steps without rounds and --vary emit-rate.
 * @param {boolean} full
 */
function capacityEpilog (full) {
  if (full) return EPILOG
  const [searches, , , , metrics, exits] = EPILOG.split('\n\n')
  return [searches, metrics, exits, 'Why a failing step can be inconclusive, steps without rounds, --vary emit-rate: --help-all'].join('\n\n')
}

/** What `--help` says first: the command line, then what it does. */
const USAGE = [
  '$0 capacity --slo EXPR [--slo EXPR …] [options]',
  'Starts the reference server (or uses --target) and --simulators simulator processes, then grows their clients step by step, broadcasting --rounds at each step, until a step fails the SLO; narrows between the last passing and the first failing step to --precision, and prints the answer in one line. Writes result.json (every step), steps.csv and report.html (p50/p99/missing against clients, with the SLO) to --out.'
].join('\n\n')

/** @type {import('yargs').CommandModule<{}, any>} */
export const capacityCommand = {
  ...COMMAND_LINES.capacity,
  builder: (y) => declareOptions(y
    .usage(USAGE), 'capacity', capacityEpilog)
    .example('$0 capacity --slo \'p99<500ms\' --slo missing=0', 'the reference server, from 1,000 clients up')
    .example('$0 capacity --slo \'p99<200ms\' --start 500 --max 20000 --precision 5% --engine lean --ramp 5s', 'a quicker search with the lean engine')
    .example('$0 capacity --target http://10.0.0.7:3000 --token $T --slo \'p99<1s\' --simulators 4', 'your own server')
    .example('$0 capacity --target http://10.0.0.7:3000 --emit \'chat {"text":"hi"}\' --event chat --slo \'connected>=99%\' --slo missing=0',
      'a chat, no rounds: its own lines')
    .example('$0 capacity --target http://10.0.0.7:3000 --vary emit-rate --clients 2000 --emit \'chat {"text":"hi"}\' --emit-ack --slo \'ack.p99<200ms\'',
      'messages a second 2,000 clients may send'),
  handler: testCommandHandler({
    name: 'capacity',
    prepare: (argv) => {
      const options = normalizeCapacityOptions(argv)
      return { out: options.out ?? path.join('ioswarm-results', `capacity-${compactNow()}`), start: (hooks) => runCapacity(argv, hooks) }
    },
    writeFiles: writeCapacityFiles,
    summary: (result) => [`\n${result.answer}\n`, ...result.advice.map((a) => `  - ${a}\n`), ...capacityWarnings(result).map((w) => `${w}\n`)].join(''),
    exitCode: (result) => EXIT_BY_OUTCOME[result.outcome],
    ciEntry: (result) => ({ kind: 'capacity', result })
  })
}

/** The time now as 20261205-061500: a default results folder's name. */
function compactNow () {
  return new Date().toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15)
}
