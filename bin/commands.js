/**
 * The list of command modules. Each feature folder owns its command in its cli.js.
 */
import { broadcastCommand } from '../broadcaster/cli.js'
import { fleetCommand } from '../infra/cli.js'
import { reportCommand } from '../results/cli.js'
import { runCommand } from '../runner/cli.js'
import { capacityCommand } from '../runner/capacity/cli.js'
import { probeCommand } from '../server/probe/cli.js'
import { serveCommand } from '../server/cli.js'
import { simulateCommand } from '../simulator/cli.js'

/** @type {import('yargs').CommandModule<any, any>[]} */
export const commands = [runCommand, capacityCommand, simulateCommand, serveCommand, broadcastCommand, reportCommand, fleetCommand, probeCommand]
