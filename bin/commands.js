/**
 * The list of command modules. Each feature folder owns its command in its cli.js.
 */
import { reportCommand } from '../results/cli.js'

/** @type {import('yargs').CommandModule<any, any>[]} */
export const commands = [reportCommand]
