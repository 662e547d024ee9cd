/**
 * The list of command modules, every one loaded. Each feature folder owns its command in its
 * cli.js; the CLI itself loads them one at a time (bin/command-modules.js).
 */
import { COMMAND_MODULES } from './command-modules.js'

/** @type {import('yargs').CommandModule<any, any>[]} */
export const commands = await Promise.all(Object.values(COMMAND_MODULES).map((load) => load()))
