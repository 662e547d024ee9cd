/**
 * The script pm2 runs for ioswarm's apps (infra/ecosystem.config.cjs): `ioswarm <command>
 * …args`, with what a static pm2 app cannot give (pm2-args.js):
 * - each simulator instance its own id, `<prefix>-<NODE_APP_INSTANCE>`, metrics port and
 *   client offset (pm2 numbers the instances of an app but cannot put that number into its arguments);
 * - an environment with only the IOSWARM_* variables of the command's own options (read
 *   from the one options table, lib/cli-options): the CLI reads every IOSWARM_<OPTION> as a
 *   flag, and the ecosystem's own settings (IOSWARM_SIMULATORS, …) are not flags.
 */
import { hideBin } from 'yargs/helpers'
import { main } from './cli.js'
import { entryArgs } from './pm2-args.js'

const { args, drop } = entryArgs(hideBin(process.argv), process.env)
for (const name of drop) delete process.env[name]
await main(args)
