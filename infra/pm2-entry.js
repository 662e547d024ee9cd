/**
 * The script pm2 runs for ioswarm's apps (infra/ecosystem.config.cjs): `ioswarm <command>
 * …args`, with two things a static pm2 app cannot give:
 * - each simulator instance its own id, `<prefix>-<NODE_APP_INSTANCE>` (pm2 numbers the
 *   instances of an app but cannot put that number into its arguments);
 * - an environment without the ecosystem's own IOSWARM_* variables: the CLI reads every
 *   IOSWARM_<OPTION> as a flag and is strict, so IOSWARM_SIMULATORS (an ecosystem setting,
 *   not a `simulate` flag) would stop it. The ecosystem passes what the command needs as
 *   arguments, and only the secrets (Redis URL, token) as the command's own variables.
 */
import os from 'node:os'
import { hideBin } from 'yargs/helpers'
import { main } from '../bin/cli.js'

/** IOSWARM_* variables each command keeps (its own flags, given by env to keep them out of `ps`). */
const KEEP = /** @type {Record<string, string[]>} */ ({ simulate: ['IOSWARM_REDIS'], serve: ['IOSWARM_TOKEN'] })

const args = hideBin(process.argv)
const command = args[0] ?? ''
const prefix = (process.env.IOSWARM_ID_PREFIX || os.hostname()).replace(/[^A-Za-z0-9._-]+/g, '-')
const instance = Number(process.env.NODE_APP_INSTANCE ?? 0)
const metricsBase = process.env.IOSWARM_METRICS_PORT_BASE
const metricsHost = process.env.IOSWARM_METRICS_HOST_BIND
for (const name of Object.keys(process.env)) {
  if (name.startsWith('IOSWARM_') && !(KEEP[command] ?? []).includes(name)) delete process.env[name]
}
if (command === 'simulate') args.push('--id', `${prefix}-${instance}`)
// Each simulator instance its own metrics port: base + instance (pm2 cannot template args).
if (command === 'simulate' && metricsBase) args.push('--metrics-port', String(Number(metricsBase) + instance), '--metrics-host', metricsHost || '0.0.0.0')
await main(args)
