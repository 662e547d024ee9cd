/**
 * Several destinations for one simulator: `--url` given several times and/or as an IPv4
 * address range (`http://127.0.0.1-127.0.0.8:3000`). Ephemeral ports are counted per
 * (source address, destination address:port), so past ≈ 28,000 clients one destination runs
 * out; a server bound to 0.0.0.0 answers on every 127.0.0.x. Clients go round-robin: client
 * i talks to destination i % D, through one engine pool per destination.
 */
import { invalidOption } from '../../lib/errors.js'
import { createSourcePorts } from '../wire/source-ports.js'
import { sumByAddress } from '../../lib/input/source-addresses.js'

/** Most destinations one range may expand to. */
const MAX_DESTINATIONS = 256

const RANGE = /^([a-z]+:\/\/)(\d+\.\d+\.\d+\.)(\d+)-(\d+\.\d+\.\d+\.)(\d+)(.*)$/i

/**
 * Expands --url values (a string or a list, each maybe an address range) into URLs.
 * @param {unknown} input
 * @returns {string[]}
 */
export function expandDestinations (input) {
  const values = [input ?? 'http://localhost:3000'].flat().map(String)
  /** @type {string[]} */
  const urls = []
  for (const value of values) {
    const match = RANGE.exec(value)
    if (!match) {
      urls.push(value)
      continue
    }
    const [, scheme, prefix, firstText, lastPrefix, lastText, rest] = match
    const first = Number(firstText)
    const last = Number(lastText)
    if (prefix !== lastPrefix || first > last || last > 255) {
      throw invalidOption('--url',
        `address range must vary only the last number, low to high (e.g. http://127.0.0.1-127.0.0.8:3000), got ${JSON.stringify(value)}`)
    }
    for (let n = first; n <= last; n++) urls.push(`${scheme}${prefix}${n}${rest}`)
  }
  if (urls.length > MAX_DESTINATIONS) throw invalidOption('--url', `gives ${urls.length} destinations; at most ${MAX_DESTINATIONS}`)
  return urls
}

/**
 * @typedef {object} DestinationCount
 * @property {string} url
 * @property {number} target clients assigned to it
 * @property {number} connected at the end
 * @property {number} everConnected
 */

/**
 * One pool per destination behind the EnginePool interface, with per-destination counts.
 * @param {import('../engines/types.js').Engine} engine
 * @param {Omit<import('../engines/types.js').EngineOptions, 'url'>} options
 * @param {string[]} urls
 * @param {number} clients
 * @param {import('../engines/types.js').SwarmEvents} events
 * @param {{ addresses: string[], slice?: { index: number, count: number } | null }} [sources] --source-address: each
 *   destination gets its own port allocator (the limit is per source address and destination)
 * @returns {import('../engines/types.js').EnginePool & { destinations(): DestinationCount[], sourcePorts(): import('../wire/source-ports.js').SourcePorts[], sourceAddresses(): import('../../lib/input/source-addresses.js').SourceAddressCount[] }}
 */
export function createDestinationPool (engine, options, urls, clients, events, sources) {
  // Clients spread evenly, the first ones one more when they do not divide.
  const targetOf = (/** @type {number} */ d) => Math.floor(clients / urls.length) + (d < clients % urls.length ? 1 : 0)
  const counts = urls.map((url, d) => ({ url, target: targetOf(d), connected: 0, everConnected: 0 }))
  const connected = new Uint8Array(clients)
  const ever = new Uint8Array(clients)
  /** @type {import('../engines/types.js').SwarmEvents} */
  const counted = {
    ...events,
    connected (i, wire, nsp, recovered) {
      if (!connected[i]) {
        connected[i] = 1
        counts[i % urls.length].connected++
        if (!ever[i]) counts[i % urls.length].everConnected++
        ever[i] = 1
      }
      events.connected(i, wire, nsp, recovered)
    },
    disconnected (i, reason, nsp) {
      if (connected[i]) {
        connected[i] = 0
        counts[i % urls.length].connected--
      }
      events.disconnected(i, reason, nsp)
    }
  }
  // Client i goes to destination i % D, and from address floor(i / D) % S: every pair is used.
  const ports = urls.map(() => createSourcePorts(sources?.addresses, sources?.slice, urls.length))
  const pools = urls.map((url, d) => engine.createPool({ ...options, url, sourcePorts: ports[d] ?? undefined }, counted))
  return {
    connect: (i, transport) => pools[i % pools.length].connect(i, transport),
    disconnect: (i) => pools[i % pools.length].disconnect(i),
    // Every argument passed on (without wantsArgs the engine decoded every ack).
    emit: (i, nsp, event, args, callback, timeoutMs, wantsArgs, encoded) =>
      pools[i % pools.length].emit(i, nsp, event, args, callback, timeoutMs, wantsArgs, encoded),
    close: async () => { await Promise.all(pools.map((p) => p.close())) },
    agent: () => pools[0].agent(),
    cookieOf: (i, name) => pools[i % pools.length].cookieOf?.(i, name) ?? null,
    addCookies: (i, cookies) => pools[i % pools.length].addCookies?.(i, cookies),
    jarOf: (i) => pools[i % pools.length].jarOf?.(i) ?? null,
    destinations: () => counts.map((c) => ({ ...c })),
    sourcePorts: () => ports.flatMap((p) => (p ? [p] : [])),
    sourceAddresses: () => sumByAddress(ports.flatMap((p) => (p ? p.stats() : [])))
  }
}
