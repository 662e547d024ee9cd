/**
 * Before each step of a capacity search: does the step fit this machine? File descriptors
 * and ephemeral ports per simulator process (each holds its share of the step), the
 * reference server's descriptors (one process holds every client), and memory for the
 * clients the step adds (those connected already hold theirs, and free memory shows it).
 * A step that does not fit is the simulators' limit, not the server's.
 */
import { CODES, IoswarmError } from '../../lib/errors.js'
import { formatMiB, judgeLimits } from '../../lib/limits.js'
import { KIB_PER_CLIENT } from '../../simulator/index.js'
import { checkSimulatorsPreflight, referenceServerFds, SERVER_KIB_PER_CLIENT } from '../preflight.js'

/**
 * @param {object} spec
 * @param {{ transport: string, engine: string, simulators: number, target: string | null, simulatorInput?: Record<string, unknown> }} spec.options
 * @param {number} spec.clients the step's clients over all simulators
 * @param {number} spec.current clients connected now
 * @param {import('../../lib/limits.js').Limits} spec.limits
 * @returns {{ fdsPerSimulator: number, fdLimit: number, warnings: string[] }}
 * @throws {IoswarmError} LIMIT naming the limit the step exceeds and how to raise it
 */
export function checkStepLimits ({ options, clients, current, limits }) {
  // Memory is checked below, for the clients the step adds and the server together.
  const { sims, pollingShare } = checkSimulatorsPreflight(options, { clients, processes: options.simulators, limits })
  const added = Math.max(0, clients - current)
  const kib = KIB_PER_CLIENT[options.engine] ?? KIB_PER_CLIENT.sio
  const simBytes = added * 1024 * (kib.websocket * (1 - pollingShare) + kib.polling * pollingShare)
  const serverBytes = options.target ? 0 : added * SERVER_KIB_PER_CLIENT * 1024
  const judged = judgeLimits([
    {
      text: `memory (available now) for the ${added} clients this step adds: needs ${formatMiB(simBytes + serverBytes)}, limit ${formatMiB(limits.freeBytes)}`,
      need: simBytes + serverBytes,
      limit: limits.freeBytes,
      how: 'use --engine lean, or simulators on more hosts'
    },
    ...referenceServerFds(options, { clients, pollingShare, limits })
  ])
  if (judged.errors.length > 0) throw new IoswarmError(CODES.LIMIT, judged.errors.join('\n  '))
  return { fdsPerSimulator: sims.needs.fdsPerProcess, fdLimit: limits.fdSoft, warnings: [...sims.warnings, ...judged.warnings] }
}
