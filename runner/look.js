/**
 * The runner's one look at the server before it starts any simulator (`run` and `capacity`).
 */
import { inspectServer, normalizeSimOptions } from '../simulator/index.js'
import { simulatorEnv } from './run-options.js'

/**
 * One look at the server before any simulator (simulator/inspection/inspect.js, as each simulator looks):
 * its heartbeat (the ramp), its protocol, and a parser mismatch or a refused namespace, named.
 * It is the first client (--auth, --query, --header, --scenario's identity()): a server that
 * checks them neither refuses it nor counts a refusal no client made.
 * @param {Pick<import('./run-options.js').RunOptions, 'simulatorInput' | 'rampMs' | 'authToken'>} options run's or capacity's
 * @param {string} url
 * @param {(line: string) => void} log
 * @param {AbortSignal} [signal]
 * @returns {Promise<import('../simulator/inspection/inspect.js').ServerInfo>} the server as seen; its rampMs is the ramp
 *   (--ramp, else the server's pingInterval). The runner hands it to every simulator it forks, which so
 *   does not look again (the server sees one look per run, not one per simulator).
 */
export async function lookAtServer (options, url, log, signal) {
  const sim = normalizeSimOptions({ ...options.simulatorInput, url, ramp: options.rampMs === null ? undefined : `${options.rampMs}ms` })
  const server = await inspectServer(sim, { env: simulatorEnv(options), signal })
  if (server.diagnosis) log(`warning: ${server.diagnosis}`)
  return server
}
