/**
 * The ioswarm command line: yargs with one module per command, each living beside the
 * library it drives (simulator/cli.js, server/cli.js, …). Maps errors to exit codes.
 */
import yargs from 'yargs'
import { loadConfigFile } from '../lib/input/config-file.js'
import { EXIT, IoswarmError } from '../lib/errors.js'
import { VERSION } from '../lib/version.js'
import { lazyCommands } from './command-modules.js'
import { CONFIG_DESCRIBE, EPILOG, SCRIPT, USAGE, helpWidth } from '../lib/cli-options/commands.js'
import { showEveryOption } from '../lib/cli-options/help.js'

/**
 * Runs the CLI with the given arguments (without `node` and the script).
 * @param {string[]} args
 * @returns {Promise<void>}
 */
export async function main (args) {
  try {
    await cliParser(args).parseAsync()
  } catch (error) {
    process.exitCode = reportError(error)
  }
}

/**
 * The yargs parser of the CLI for these arguments, not yet run.
 * @param {string[]} args
 * @param {number} [width] the help's width (the terminal's, see helpWidth)
 */
export function cliParser (args, width = helpWidth(process.stdout.columns)) {
  const help = helpArgs(args)
  // yargs turns any error of a config parser into "Invalid JSON config file"; keep ours.
  /** @type {unknown} */
  let configError
  const parser = yargs(help.args)
    .scriptName(SCRIPT)
    .usage(USAGE)
    .env('IOSWARM')
    .config('config', CONFIG_DESCRIBE, (file) => {
      try {
        return loadConfigFile(file)
      } catch (error) {
        configError = error
        return {}
      }
    })
    .version(VERSION)
    .help()
    .alias('h', 'help')
    .strict()
    .demandCommand(1, 'Name a command: run, capacity, simulate, serve, broadcast, report, fleet, probe.')
    .recommendCommands()
    // yargs renders the whole help of the command it runs, even when nobody asks for it (it keeps
    // it for a later showHelp); wrapping that text to the terminal is most of a command's start-up
    // CPU, so only a help that will be shown is wrapped.
    .wrap(help.shown ? width : null)
    .epilog(EPILOG)
    .fail((message, error) => {
      if (error) throw error
      process.stderr.write(`ioswarm: ${message}\nRun with --help for the options.\n`)
      process.exit(EXIT.USAGE)
    })
  parser.middleware((argv) => {
    if (configError) throw configError
    const known = /** @type {{ getOptions(): { array: string[], key: Record<string, boolean> } }} */ (/** @type {unknown} */ (parser)).getOptions()
    const arrays = new Set(known.array)
    for (const [key, value] of Object.entries(argv)) {
      if (key === '_' || key === '$0' || key === '--') continue
      // IOSWARM_* variables apply to the commands that have that option; one meant for
      // another command (IOSWARM_TOKEN while simulating) is not an unknown argument here.
      if (!known.key[key] && fromEnvOnly(key)) {
        delete argv[key]
        continue
      }
      // A flag given twice takes its last value, as in most CLIs; array options keep all.
      if (Array.isArray(value) && !arrays.has(key)) argv[key] = value.at(-1)
    }
  }, true)
  for (const command of lazyCommands()) parser.command(command)
  if (help.all) showEveryOption(parser)
  if (!help.shown) skipHelpCache(parser)
  return parser
}

/**
 * yargs renders the running command's whole help after parsing, in case a handler shows it
 * later; no handler here does, and an error prints one line, so a command line that asks for
 * no help skips that render (a seventh of a refused command's start-up CPU).
 * @param {import('yargs').Argv} parser
 */
function skipHelpCache (parser) {
  const internal = /** @type {{ getInternalMethods?: () => { getUsageInstance: () => { cacheHelpMessage?: () => void } } }} */ (
    /** @type {unknown} */ (parser))
  const usage = internal.getInternalMethods?.().getUsageInstance()
  if (usage && typeof usage.cacheHelpMessage === 'function') usage.cacheHelpMessage = () => {}
}

/**
 * `--help-all` and `help COMMAND [--all]` as yargs takes them: `COMMAND --help`, with every
 * option in full for --help-all and --all (yargs' own --help names the rarely used ones only).
 * @param {string[]} args
 * @returns {{ args: string[], all: boolean, shown: boolean }} shown: a help will be printed
 */
export function helpArgs (args) {
  if (args[0] === 'help') {
    const rest = args.slice(1)
    return { args: [...rest.filter((a) => a !== '--all'), '--help'], all: rest.includes('--all'), shown: true }
  }
  if (!args.includes('--help-all')) return { args, all: false, shown: args.some((a) => a === '--help' || a === '-h') }
  return { args: [...args.filter((a) => a !== '--help-all'), '--help'], all: true, shown: true }
}

/**
 * Whether an option name came only from an IOSWARM_* environment variable.
 * @param {string} key an option name, kebab-case or camelCase
 */
function fromEnvOnly (key) {
  const snake = key.replace(/([a-z0-9])([A-Z])/g, '$1_$2').replace(/-/g, '_').toUpperCase()
  return process.env[`IOSWARM_${snake}`] !== undefined
}

/**
 * Prints an error the way a user needs it and returns the exit code.
 * @param {unknown} error
 */
function reportError (error) {
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
