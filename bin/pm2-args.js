/**
 * What the pm2 entry (pm2-entry.js) runs, as a pure function of pm2's arguments and
 * environment: the command's own arguments plus what a static pm2 app cannot template per
 * instance (id, metrics port, its part of the fleet's swarm), and the IOSWARM_* variables to drop (those that
 * are not options of the command: the CLI reads every IOSWARM_<OPTION> as a flag).
 */
import os from 'node:os'
import { foreignEnvNames } from '../lib/cli-options/index.js'

/**
 * @param {string[]} args `ioswarm` arguments from the ecosystem file: [command, …]
 * @param {NodeJS.ProcessEnv} env pm2's environment for this instance
 * @returns {{ args: string[], drop: string[] }}
 */
export function entryArgs (args, env) {
  const command = args[0] ?? ''
  const out = [...args]
  if (command === 'simulate') {
    const prefix = (env.IOSWARM_ID_PREFIX || os.hostname()).replace(/[^A-Za-z0-9._-]+/g, '-')
    const instance = Number(env.NODE_APP_INSTANCE ?? 0)
    out.push('--id', `${prefix}-${instance}`)
    // Each simulator instance its own metrics port: base + instance (pm2 cannot template args).
    if (env.IOSWARM_METRICS_PORT_BASE) {
      out.push('--metrics-port', String(Number(env.IOSWARM_METRICS_PORT_BASE) + instance), '--metrics-host', env.IOSWARM_METRICS_HOST_BIND || '0.0.0.0')
    }
    // `fleet up` gives each host its first part of the fleet's swarm and the number of parts;
    // instance i is the part after that many (its clients and emitters: simulator/processes/partition.js).
    if (env.IOSWARM_PARTS && !env.IOSWARM_PART) out.push('--part', `${Number(env.IOSWARM_PART_BASE ?? 0) + instance}/${env.IOSWARM_PARTS}`)
  }
  return { args: out, drop: foreignEnvNames(command, env) }
}
