/**
 * Preflight: what a requested run needs (file descriptors per process, ephemeral ports per
 * destination, memory) against this machine's limits, checked before any socket opens. A
 * hidden client-side limit fakes server results (docs/measurement.md), so a run that cannot fit stops
 * with the limit named and how to raise it, and one that barely fits says so.
 */
import { CODES, IoswarmError } from '../../lib/errors.js'
import { formatMiB, judgeLimits } from '../../lib/limits.js'
import { modeShape } from '../../lib/transports.js'
import { POST_CONNECTIONS } from '../wire/limits.js'

/** Descriptors a simulator process holds besides its clients (stdio, epoll, timers, Redis, probe). */
export const FD_MARGIN = 64
/** Fixed RSS of one simulator process (Node, modules), bytes. */
const BASE_BYTES = 80 * 1024 * 1024
/**
 * RSS per client, KiB, by engine and wire transport: bench/results/2026-11-engines.md's 1,000–4,000-client
 * figures, rounded up (polling peaks higher during connects).
 * @type {Record<string, { websocket: number, polling: number }>}
 */
export const KIB_PER_CLIENT = {
  lean: { websocket: 24, polling: 40 },
  // Plain WebSocket (--protocol websocket): one WebSocket per client, no polling.
  websocket: { websocket: 24, polling: 24 },
  sio: { websocket: 40, polling: 72 }
}

/**
 * @typedef {import('../../lib/limits.js').Limits} Limits
 */

export { readLimits, judgeLimits, formatMiB, WARN_RATIO } from '../../lib/limits.js'

/**
 * @typedef {object} Need
 * @property {number} clients in all processes
 * @property {number} processes simulator processes sharing the clients (--workers)
 * @property {number} destinations destination address:port pairs the clients are spread over
 * @property {number} [sourceAddresses] source addresses the clients are spread over (--source-address); default 1
 * @property {string} engine
 * @property {number} pollingShare 0..1: share of clients that start on polling (polling or upgrade)
 * @property {number} [upgradeShare] 0..1: share of clients in upgrade mode (two sockets while the upgrade runs); default pollingShare
 */

/**
 * @typedef {object} Preflight
 * @property {{ fdsPerProcess: number, portsPerDestination: number, memoryBytes: number }} needs
 * @property {Limits} limits
 * @property {string[]} warnings limits above 80 % use
 */

/**
 * Share of clients that poll (polling, or upgrade: two sockets while the upgrade runs).
 * @param {import('../../lib/values/parsers.js').MixEntry[]} mix
 */
export function pollingShareOf (mix) {
  return shareOf(mix, (t) => modeShape(t).startsPolling)
}

/**
 * Share of clients in upgrade mode (polling first, then a WebSocket probe beside it).
 * @param {import('../../lib/values/parsers.js').MixEntry[]} mix
 */
export function upgradeShareOf (mix) {
  return shareOf(mix, (t) => modeShape(t).upgrades)
}

/**
 * @param {import('../../lib/values/parsers.js').MixEntry[]} mix
 * @param {(transport: import('../../lib/transports.js').ClientMode) => boolean} pick
 */
function shareOf (mix, pick) {
  const total = mix.reduce((sum, m) => sum + m.weight, 0)
  const picked = mix.filter((m) => pick(m.transport)).reduce((sum, m) => sum + m.weight, 0)
  return total > 0 ? picked / total : 0
}

/**
 * What a swarm of these options needs of this host, its clients over `processes` processes
 * (one swarm, or --workers): the one reading of the options that the swarm and workers check.
 * @param {Pick<import('../sim-options.js').SimOptions, 'clients' | 'urls' | 'sourceAddresses' | 'engine' | 'transport'>} options
 * @param {number} processes
 * @returns {Need}
 */
export function needOf (options, processes) {
  return {
    clients: options.clients,
    processes,
    destinations: options.urls.length,
    sourceAddresses: options.sourceAddresses?.length || 1,
    engine: options.engine,
    pollingShare: pollingShareOf(options.transport),
    upgradeShare: upgradeShareOf(options.transport)
  }
}

/**
 * Checks a run against limits; throws IoswarmError LIMIT naming every limit it exceeds.
 * @param {Need} need
 * @param {Limits} limits
 * @returns {Preflight}
 */
export function checkPreflight (need, limits) {
  // socket.io-client's polling holds a GET and, at times, a POST connection per client. The lean
  // engine polls on one connection per client and posts over a bounded pool per destination and
  // source address (a client's POSTs leave from its own address), on either HTTP client (undici's
  // Pool, the built-in client's post-pool.js); only its upgrading clients hold two sockets for a while.
  const lean = need.engine === 'lean'
  const socketsPerClient = 1 + (lean ? need.upgradeShare ?? need.pollingShare : need.pollingShare)
  const postPool = lean && need.pollingShare > 0 ? POST_CONNECTIONS : 0
  const perProcess = Math.ceil(need.clients / need.processes)
  const sources = need.sourceAddresses ?? 1
  const fdsPerProcess = Math.ceil(perProcess * socketsPerClient) + Math.min(postPool * sources, perProcess) * need.destinations + FD_MARGIN
  // Ports are per (source address, destination): the clients spread over both.
  const perSource = Math.ceil(need.clients / (need.destinations * sources))
  const portsPerDestination = Math.ceil(perSource * socketsPerClient) + Math.min(postPool, perSource) * need.processes
  const kib = KIB_PER_CLIENT[need.engine] ?? KIB_PER_CLIENT.sio
  const perClientBytes = 1024 * (kib.websocket * (1 - need.pollingShare) + kib.polling * need.pollingShare)
  const memoryBytes = Math.round(need.processes * BASE_BYTES + need.clients * perClientBytes)
  const workers = Math.ceil(fdsPerProcess / Math.max(1, limits.fdSoft - FD_MARGIN) * need.processes)
  const leanPolling = need.engine === 'sio' && need.pollingShare > 0
    ? ', or poll with --engine lean (one descriptor per polling client and a bounded pool for POSTs)'
    : ''
  const fdHow = `raise it with \`ulimit -n ${fdsPerProcess}\` (up to the hard limit ${limits.fdHard}; ` +
    `above it: infra/tune-host.sh or /etc/security/limits.conf), or spread the clients over more processes with --workers ${workers}${leanPolling}`
  const ports = `ephemeral ports per (source address, destination) over ${sources} source address(es) and ${need.destinations} destination(s) ` +
    `(net.ipv4.ip_local_port_range ${limits.portRange})`
  const addresses = Math.ceil(portsPerDestination * sources / (limits.ports * 0.8))
  const more = Math.max(2, addresses)
  const portHow = `give the simulator more source addresses (--source-address 10.0.0.2-10.0.0.${1 + more}: ${more} or more; ` +
    'add each to an interface first, `ip addr add 10.0.0.3/24 dev eth0`, on Kubernetes as more pods or a CNI giving several addresses, ' +
    'under pm2 on every host), or more destinations (--url several times, or a range such as http://127.0.0.1-127.0.0.8:3000, ' +
    'when the server answers on several addresses), or widen the range with infra/tune-host.sh'
  const { errors, warnings } = judgeLimits([
    { text: `file descriptors per process (ulimit -n): needs ${fdsPerProcess}, limit ${limits.fdSoft}`, need: fdsPerProcess, limit: limits.fdSoft, how: fdHow },
    { text: `${ports}: needs ${portsPerDestination}, limit ${limits.ports}`, need: portsPerDestination, limit: limits.ports, how: portHow },
    {
      text: `memory (available now): needs ${formatMiB(memoryBytes)}, limit ${formatMiB(limits.freeBytes)}`,
      need: memoryBytes,
      limit: limits.freeBytes,
      how: 'use --engine lean, fewer clients per host, or more hosts'
    }
  ])
  if (errors.length > 0) {
    const run = `${need.clients} clients, ${need.processes} process(es), ${need.destinations} destination(s)` +
      (sources > 1 ? `, ${sources} source addresses` : '')
    throw new IoswarmError(CODES.LIMIT, `this run does not fit this machine (${run}):\n  ${errors.join('\n  ')}`)
  }
  return { needs: { fdsPerProcess, portsPerDestination, memoryBytes }, limits, warnings }
}
