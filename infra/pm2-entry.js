/**
 * The script pm2 runs for ioswarm's apps (infra/ecosystem.config.cjs): `ioswarm <command>
 * …args`, with two things a static pm2 app cannot give:
 * - each simulator instance its own id, `<prefix>-<NODE_APP_INSTANCE>` (pm2 numbers the
 *   instances of an app but cannot put that number into its arguments);
 * - an environment with only the IOSWARM_* variables of the command's own options (read
 *   from the one options table, lib/cli-options): the CLI reads every IOSWARM_<OPTION> as a
 *   flag, and the ecosystem's own settings (IOSWARM_SIMULATORS, …) are not flags.
 */
import os from 'node:os'
import { hideBin } from 'yargs/helpers'
import { main } from '../bin/cli.js'
import { foreignEnvNames } from '../lib/cli-options/index.js'

const args = hideBin(process.argv)
const command = args[0] ?? ''
const prefix = (process.env.IOSWARM_ID_PREFIX || os.hostname()).replace(/[^A-Za-z0-9._-]+/g, '-')
const instance = Number(process.env.NODE_APP_INSTANCE ?? 0)
const metricsBase = process.env.IOSWARM_METRICS_PORT_BASE
const metricsHost = process.env.IOSWARM_METRICS_HOST_BIND
for (const name of foreignEnvNames(command, process.env)) delete process.env[name]
if (command === 'simulate') args.push('--id', `${prefix}-${instance}`)
// Each simulator instance its own metrics port: base + instance (pm2 cannot template args).
if (command === 'simulate' && metricsBase) args.push('--metrics-port', String(Number(metricsBase) + instance), '--metrics-host', metricsHost || '0.0.0.0')
await main(args)
