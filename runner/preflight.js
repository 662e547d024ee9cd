/**
 * The runner's preflight: every local simulator of a distribution and the reference server
 * share this machine, so their needs add up. Each simulator checks only itself; this checks
 * the sum (and the reference server, one process holding every client's socket) before any
 * process starts, with the same limits and the same wording.
 */
import { CODES, IoswarmError } from '../lib/errors.js'
import { parseTransportMix } from '../lib/values/parsers.js'
import { formatMiB, judgeLimits } from '../lib/limits.js'
import { parseSourceAddresses } from '../lib/input/source-addresses.js'
import { checkPreflight, FD_MARGIN, pollingShareOf, upgradeShareOf } from '../simulator/index.js'

/** RSS of the reference server per connected client, KiB (socket.io 4.8, measured in the scale runs of bench/results/2026-11-scale.md, rounded up). */
export const SERVER_KIB_PER_CLIENT = 40

/**
 * @param {import('./run-options.js').RunOptions} options
 * @param {import('../lib/limits.js').Limits} limits
 * @returns {string[]} warnings (limits above 80 % use)
 * @throws {IoswarmError} LIMIT naming the limit a distribution exceeds and how to raise it
 */
export function checkRunPreflight (options, limits) {
  const warnings = new Set()
  for (const d of options.distributions) {
    if (d.simulators === 0) continue
    const clients = d.total
    const serverBytes = options.target ? 0 : clients * SERVER_KIB_PER_CLIENT * 1024
    let sims, pollingShare
    try {
      ({ sims, pollingShare } = checkSimulatorsPreflight(options, { clients, processes: d.simulators, limits }))
    } catch (error) {
      if (!(error instanceof IoswarmError)) throw error
      throw new IoswarmError(CODES.LIMIT, `distribution ${d.name}: ${error.message}`)
    }
    const memoryBytes = sims.needs.memoryBytes + serverBytes
    const judged = judgeLimits([
      {
        text: `memory (available now): needs ${formatMiB(memoryBytes)} (simulators ${formatMiB(sims.needs.memoryBytes)}` +
          `${serverBytes ? ` + reference server ${formatMiB(serverBytes)}` : ''}), limit ${formatMiB(limits.freeBytes)}`,
        need: memoryBytes,
        limit: limits.freeBytes,
        how: 'use --engine lean, fewer clients per host, or simulators on more hosts (--redis with --expect-simulators)'
      },
      ...referenceServerFds(options, { clients, pollingShare, limits })
    ])
    if (judged.errors.length > 0) throw new IoswarmError(CODES.LIMIT, `distribution ${d.name}: ${judged.errors.join(`\n  distribution ${d.name}: `)}`)
    for (const w of [...sims.warnings, ...judged.warnings]) warnings.add(`distribution ${d.name}: ${w}`)
  }
  return [...warnings]
}

/**
 * The reference server's file descriptors: one process holds every client's socket (a polling
 * client two), so a run and each capacity step check them the one way. None with --target:
 * a target's descriptors are its own business.
 * @param {{ target: string | null }} options run's or capacity's
 * @param {{ clients: number, pollingShare: number, limits: import('../lib/limits.js').Limits }} load
 * @returns {{ text: string, need: number, limit: number, how: string }[]} for judgeLimits
 */
export function referenceServerFds ({ target }, { clients, pollingShare, limits }) {
  if (target) return []
  const need = Math.ceil(clients * (1 + pollingShare)) + FD_MARGIN
  return [{
    text: `reference server file descriptors (ulimit -n): needs ${need} for ${clients} clients in one process, limit ${limits.fdSoft}`,
    need,
    limit: limits.fdSoft,
    how: `raise it with \`ulimit -n ${need}\` (up to the hard limit ${limits.fdHard}), ` +
      'or run the server yourself in cluster mode (`ioswarm serve --cluster K --host 0.0.0.0`) and point --target at it'
  }]
}

/**
 * The local simulators' own preflight (simulator/inspection/preflight.js) for `clients` over `processes` on
 * this host, which they share with the runner: file descriptors and ephemeral ports, without
 * memory (a run and a capacity step check memory themselves, with the reference server's).
 * @param {{ transport: string, engine: string, simulatorInput?: Record<string, unknown> }} options run's or capacity's
 * @param {{ clients: number, processes: number, limits: import('../lib/limits.js').Limits }} load
 * @returns {{ sims: ReturnType<typeof checkPreflight>, pollingShare: number }} the check and the clients' polling share
 * @throws {IoswarmError} LIMIT naming the limit exceeded
 */
export function checkSimulatorsPreflight (options, { clients, processes, limits }) {
  const mix = parseTransportMix(options.transport)
  const pollingShare = pollingShareOf(mix)
  // The simulators share this host's --source-address addresses (each a slice of the port range).
  const sourceAddresses = parseSourceAddresses(options.simulatorInput?.sourceAddress, '--source-address').length || 1
  const load = { clients, processes, destinations: 1, sourceAddresses, engine: options.engine, pollingShare, upgradeShare: upgradeShareOf(mix) }
  return { sims: checkPreflight(load, { ...limits, freeBytes: Infinity }), pollingShare }
}
