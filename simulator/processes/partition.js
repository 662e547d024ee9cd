/**
 * The one partition of a swarm into processes: `simulate --workers`, `ioswarm run`'s local
 * simulators, `ioswarm capacity`'s simulators, the hosts of `fleet up` and the pods of the
 * Kubernetes Job (the last two through `--part K/N`) all split a swarm with partitionSwarm,
 * so each part's clients keep their index in the whole ({{i}}, feeder rows, rooms), the whole
 * picks the same emitters however it is split, and parts that share a host's source addresses
 * get disjoint slices of the port range.
 */
import { maxClientsOf, slicePhases } from '../../lib/input/phase-profile.js'

/** The golden ratio's fraction: multiples of it mod 1 spread over [0, 1) as evenly as a sequence can. */
const GOLDEN = (Math.sqrt(5) - 1) / 2

/**
 * Which of a swarm's clients emit (--emitters): the share (or count) of them whose run
 * index g has the smallest frac(g × golden ratio). A low-discrepancy pick: spread over the
 * whole run, the same client whatever the layout, and never in step with `--rooms R`'s
 * `room-{g mod R}` (every other index would put every emitter of `--rooms 2` in one room).
 * @param {number} clients
 * @param {number} offset the simulator's first run index
 * @param {{ share: number } | { count: number }} emitters
 * @returns {Uint8Array} 1 = client i emits
 */
export function pickEmitters (clients, offset, emitters) {
  const want = 'share' in emitters ? Math.round(emitters.share * clients) : Math.min(emitters.count, clients)
  const order = Array.from({ length: clients }, (_, i) => i).sort((a, b) => frac((offset + a) * GOLDEN) - frac((offset + b) * GOLDEN))
  const picked = new Uint8Array(clients)
  for (let k = 0; k < want; k++) picked[order[k]] = 1
  return picked
}

/** @param {number} x */
const frac = (x) => x - Math.floor(x)

/**
 * What one part of a swarm runs: its share of the whole's options.
 * @typedef {object} SwarmPart
 * @property {number} index 0-based
 * @property {number} clients
 * @property {number} clientOffset run index of its first client
 * @property {{ count: number }} emitters the whole's emitters among this part's clients (its own pick finds exactly them)
 * @property {number | null} rooms the whole's --rooms: a client's room follows its run index, so every part keeps it
 * @property {{ index: number, count: number }} sourcePortSlice its slice of the port range (within the whole's own slice)
 * @property {number} [maxClients] its share of the whole's maxClients (room to grow: `ioswarm capacity`), when the whole has one
 * @property {import('../../lib/input/phase-profile.js').Phase[]} [phases] --phases: each ramp's target split as the clients are, when the whole has them
 */

/**
 * The whole's options partitionSwarm reads.
 * @typedef {object} SwarmWhole
 * @property {number} clients
 * @property {number} [clientOffset] run index of the whole's first client (default 0)
 * @property {{ share: number } | { count: number }} emitters a share is exact over the whole; a count is for the whole
 * @property {number | null} [rooms]
 * @property {{ index: number, count: number } | null} [sourcePortSlice] the whole's own slice (a part of a part)
 * @property {number} [maxClients]
 * @property {import('../../lib/input/phase-profile.js').Phase[] | null} [phases]
 */

/**
 * Part k's share of `total`: as even as it gets, the first parts one more.
 * @param {number} total
 * @param {number} parts
 * @param {number} k
 */
export function shareOf (total, parts, k) {
  return Math.floor(total / parts) + (k < total % parts ? 1 : 0)
}

/**
 * Splits a swarm into `parts` processes. Client indices are contiguous: part k starts where
 * part k − 1's room ends (its maxClients when the whole has one, else its clients).
 * @param {SwarmWhole} whole
 * @param {number} parts
 * @returns {SwarmPart[]}
 */
export function partitionSwarm (whole, parts) {
  if (!Number.isInteger(parts) || parts < 1) throw new RangeError(`parts must be a positive integer, got ${parts}`)
  const base = whole.clientOffset ?? 0
  const hasMax = whole.maxClients !== undefined
  // The emitters are picked over every index the whole may use (its room to grow included).
  const span = Math.max(whole.clients, whole.maxClients ?? 0)
  const picked = pickEmitters(span, base, whole.emitters)
  const parent = whole.sourcePortSlice ?? { index: 0, count: 1 }
  let clientOffset = base
  return Array.from({ length: parts }, (_, k) => {
    const clients = shareOf(whole.clients, parts, k)
    const maxClients = hasMax ? shareOf(/** @type {number} */ (whole.maxClients), parts, k) : undefined
    const room = Math.max(clients, maxClients ?? 0)
    let count = 0
    for (let i = clientOffset - base; i < clientOffset - base + room; i++) count += picked[i]
    /** @type {SwarmPart} */
    const part = {
      index: k,
      clients,
      clientOffset,
      emitters: { count },
      rooms: whole.rooms ?? null,
      sourcePortSlice: { index: parent.index * parts + k, count: parent.count * parts },
      ...(maxClients === undefined ? {} : { maxClients }),
      ...(whole.phases ? { phases: slicePhases(whole.phases, parts, k) } : {})
    }
    clientOffset += room
    return part
  })
}

/**
 * Where part `part.index` of `part.count` equal parts sits in the whole (`simulate --part K/N`:
 * a fleet host's simulator, a pod of the Kubernetes Job, each with the same --clients): the
 * whole is count × clients from the given clientOffset on. Its source-port slice stays its
 * own: such parts run on hosts (or pods) of their own. With --phases the profile is the whole
 * swarm's, as on every command: the part follows its slice of each step, and its clients are
 * its share of the profile's peak.
 * @param {SwarmWhole} options the part's clients, the whole's emitters and first index
 * @param {{ index: number, count: number }} part
 * @returns {{ clientOffset: number, emitters: { count: number }, clients: number,
 *   phases?: import('../../lib/input/phase-profile.js').Phase[] }}
 */
export function partOfSwarm (options, part) {
  if (options.phases) {
    const own = partitionSwarm({ ...options, clients: maxClientsOf(options.phases) }, part.count)[part.index]
    return { clientOffset: own.clientOffset, emitters: own.emitters, clients: own.clients, phases: own.phases }
  }
  const times = (/** @type {number} */ n) => n * part.count
  const whole = { ...options, clients: times(options.clients), ...(options.maxClients === undefined ? {} : { maxClients: times(options.maxClients) }) }
  const own = partitionSwarm(whole, part.count)[part.index]
  return { clientOffset: own.clientOffset, emitters: own.emitters, clients: options.clients }
}
