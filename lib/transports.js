/**
 * The transports, as data. A *wire transport* carries a connection's packets: what a server
 * counts and what results break counts down by. A *client mode* (`--transport`) says which
 * wire transports a simulated client uses, in order. Every per-transport count, CSV column,
 * chart series and preflight share is built from these two lists, so adding a transport is a
 * row here and its module in each engine (the lean engine's map: simulator/engines/lean/transports.js).
 * A leaf: imports nothing.
 */

/**
 * @typedef {'websocket' | 'polling'} WireTransport
 * @typedef {'websocket' | 'polling' | 'upgrade'} ClientMode
 * @typedef {Record<WireTransport, number>} ByTransport
 */

/**
 * Wire transports in display order, with what reports and tables call them. `persistent`: one
 * long-lived connection (counted as such when a server names a transport we do not know,
 * e.g. webtransport), as opposed to a series of HTTP requests.
 * @type {readonly { name: WireTransport, label: string, persistent: boolean }[]}
 */
const WIRE_TRANSPORTS = Object.freeze([
  { name: 'websocket', label: 'WebSocket', persistent: true },
  { name: 'polling', label: 'long-polling', persistent: false }
])

/** The wire transports' names, in display order. */
export const WIRE_NAMES = Object.freeze(WIRE_TRANSPORTS.map((t) => t.name))

/** A wire transport as a small number, for per-client arrays and per-packet paths: 0 = none (not connected). */
export const WIRE_NONE = 0

/**
 * The number of a connection's wire transport (its name as wireOf reads it): 1 + its index in
 * WIRE_NAMES. The one numbering: the lean engine's clients and the swarm's tracker both use it.
 * @param {string | undefined} name
 */
export function wireNumber (name) {
  return WIRE_NAMES.indexOf(wireOf(name)) + 1
}

/**
 * The wire transport of a number from wireNumber.
 * @param {number} wire not WIRE_NONE
 */
export function wireName (wire) {
  return /** @type {WireTransport} */ (WIRE_NAMES[wire - 1])
}

/**
 * Client modes and the wire transports each uses, in order: `upgrade` polls first, then moves
 * to WebSocket, as browsers do.
 * @type {Readonly<Record<ClientMode, readonly WireTransport[]>>}
 */
export const CLIENT_MODES = Object.freeze({
  websocket: Object.freeze(/** @type {WireTransport[]} */ (['websocket'])),
  polling: Object.freeze(/** @type {WireTransport[]} */ (['polling'])),
  upgrade: Object.freeze(/** @type {WireTransport[]} */ (['polling', 'websocket']))
})

/** The client modes' names: what --transport accepts (alone or in a mix). */
export const MODE_NAMES = Object.freeze(/** @type {ClientMode[]} */ (Object.keys(CLIENT_MODES)))

/**
 * A record with one value per wire transport: perTransport(() => 0) → { websocket: 0, polling: 0 }.
 * @template T
 * @param {(name: WireTransport) => T} make
 * @returns {Record<WireTransport, T>}
 */
export function perTransport (make) {
  return /** @type {Record<WireTransport, T>} */ (Object.fromEntries(WIRE_NAMES.map((name) => [name, make(name)])))
}

/**
 * The sum of a per-transport record.
 * @param {Partial<Record<string, number | null>>} byTransport
 */
export function totalOf (byTransport) {
  let total = 0
  for (const name of WIRE_NAMES) total += byTransport[name] ?? 0
  return total
}

/**
 * The wire transport of a connection from the name its library gives it (Engine.IO's
 * `transport.name`): a known name as is, another persistent one (webtransport) as the first
 * persistent transport.
 * @param {string | undefined} name
 * @returns {WireTransport}
 */
export function wireOf (name) {
  const known = WIRE_TRANSPORTS.find((t) => t.name === name) ?? WIRE_TRANSPORTS.find((t) => t.persistent)
  return /** @type {WireTransport} */ (known?.name)
}

/**
 * Whether clients of a mode start on a transport that is not persistent (and so hold more
 * sockets per client while connecting), and whether they move between transports.
 * @param {ClientMode} mode
 */
export function modeShape (mode) {
  const wires = CLIENT_MODES[mode]
  const first = WIRE_TRANSPORTS.find((t) => t.name === wires[0])
  return { startsPolling: !first?.persistent, upgrades: wires.length > 1 }
}
