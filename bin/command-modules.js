/**
 * The command modules, each loaded when its command runs (or its --help is asked for): yargs
 * gets every command's line from lib/cli-options/commands.js at once, and a command's builder
 * and handler load its module, and so its library, on first use. `ioswarm --help` and
 * `--version` load none of them (issue 26: a light process).
 */
import { COMMAND_LINES } from '../lib/cli-options/commands.js'

/** @typedef {import('yargs').CommandModule<any, any>} CommandModule */

/** @type {Record<keyof typeof COMMAND_LINES, () => Promise<CommandModule>>} */
export const COMMAND_MODULES = {
  run: async () => (await import('../runner/cli.js')).runCommand,
  capacity: async () => (await import('../runner/capacity/cli.js')).capacityCommand,
  simulate: async () => (await import('../simulator/cli.js')).simulateCommand,
  serve: async () => (await import('../server/cli.js')).serveCommand,
  broadcast: async () => (await import('../broadcaster/cli.js')).broadcastCommand,
  report: async () => (await import('../results/cli.js')).reportCommand,
  fleet: async () => (await import('../infra/cli.js')).fleetCommand,
  probe: async () => (await import('../server/probe/cli.js')).probeCommand,
  record: async () => (await import('../recorder/cli.js')).recordCommand
}

/**
 * Every command, each standing in for its module until yargs runs its builder.
 * @returns {CommandModule[]}
 */
export function lazyCommands () {
  return Object.entries(COMMAND_MODULES).map(([name, load]) => {
    const line = COMMAND_LINES[/** @type {keyof typeof COMMAND_LINES} */ (name)]
    /**
     * yargs awaits a builder's promise (parseAsync) before it parses the command's flags;
     * @types/yargs does not say so, hence the cast below.
     * @param {import('yargs').Argv} y
     */
    const builder = async (y) => {
      const { builder: build } = await load()
      return typeof build === 'function' ? build(y) : y
    }
    return {
      ...line,
      builder: /** @type {(y: import('yargs').Argv) => import('yargs').Argv} */ (/** @type {unknown} */ (builder)),
      handler: async (argv) => (await load()).handler(argv)
    }
  })
}
