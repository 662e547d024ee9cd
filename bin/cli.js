/**
 * The ioswarm command line: yargs with one module per command, each living beside the
 * library it drives (simulator/cli.js, server/cli.js, …). Maps errors to exit codes.
 */
import yargs from 'yargs'
import { EXIT, IoswarmError } from '../lib/errors.js'
import { VERSION } from '../lib/version.js'
import { commands } from './commands.js'

/**
 * Runs the CLI with the given arguments (without `node` and the script).
 * @param {string[]} args
 * @returns {Promise<void>}
 */
export async function main (args) {
  const parser = yargs(args)
    .scriptName('ioswarm')
    .usage('$0 <command> [options]\n\nLoad-test a Socket.IO server with a swarm of real clients and measure how long each broadcast takes to reach all of them.')
    .env('IOSWARM')
    .config('config', 'JSON file of options (flag names as keys)')
    .version(VERSION)
    .help()
    .alias('h', 'help')
    .strict()
    .demandCommand(1, 'Name a command: simulate, serve, broadcast, run, report.')
    .recommendCommands()
    .wrap(Math.min(110, process.stdout.columns || 100))
    .epilog('Exit codes: 0 ok, 1 runtime failure, 2 bad usage, 3 a --assert threshold failed.\nDocs: README.md')
    .fail((message, error) => {
      if (error) throw error
      process.stderr.write(`ioswarm: ${message}\nRun with --help for the options.\n`)
      process.exit(EXIT.USAGE)
    })
  // A flag given twice takes its last value, as in most CLIs; options declared as arrays
  // (--event, --assert) keep every value.
  parser.middleware((argv) => {
    const arrays = new Set(/** @type {{ getOptions(): { array: string[] } }} */ (/** @type {unknown} */ (parser)).getOptions().array)
    for (const [key, value] of Object.entries(argv)) {
      if (Array.isArray(value) && key !== '_' && !arrays.has(key)) argv[key] = value.at(-1)
    }
  }, true)
  for (const command of commands) parser.command(command)
  try {
    await parser.parseAsync()
  } catch (error) {
    process.exitCode = reportError(error)
  }
}

/**
 * Prints an error the way a user needs it and returns the exit code.
 * @param {unknown} error
 */
export function reportError (error) {
  if (error instanceof IoswarmError) {
    process.stderr.write(`ioswarm: ${error.message}\n`)
    if (process.env.DEBUG && error.stack) process.stderr.write(`${error.stack}\n`)
    return error.exitCode
  }
  const err = /** @type {Error} */ (error)
  process.stderr.write(`ioswarm: ${err?.message ?? String(error)}\n`)
  if (process.env.DEBUG && err?.stack) process.stderr.write(`${err.stack}\n`)
  else process.stderr.write('(set DEBUG=1 for the stack trace)\n')
  return EXIT.RUNTIME
}
