/**
 * Which node of a deployment served which client (`--node-from`): where a client reads its
 * node's name, the bound on names (the first MAX_NODE_NAMES by arrival, the rest folded into
 * one `other` row, as rooms are), the merge of per-node reports over processes and
 * simulators, and the imbalance (largest ÷ smallest node). Shared by the simulator, which
 * counts, and results/, which merges and judges.
 */
import { invalidOption } from '../errors.js'
import { parseFieldPath } from './fields.js'
import { encode, mergeEncoded, summarize } from '../measure/histogram.js'

/** Node names with a row of their own; later names share the `other` row. */
export const MAX_NODE_NAMES = 50
/** The row of the names past MAX_NODE_NAMES. */
export const OTHER_NODE = 'other'
/** Longest node name kept (a cookie or header value is the server's text). */
const MAX_NODE_NAME_LENGTH = 100

/**
 * Where each client reads its node's name: the balancer's cookie in the handshake response
 * (or the client's jar), a response header of the handshake, or an event the app sends on
 * connect (its first argument, or the dot path into it).
 * @typedef {{ spec: string, kind: 'cookie' | 'header' | 'event', name: string, path: string | null }} NodeFrom
 */

const KINDS = Object.freeze(['cookie', 'header', 'event'])

/**
 * `--node-from cookie:NAME | header:NAME | event:NAME[.path]` → NodeFrom (null when not given).
 * @param {unknown} value
 * @param {string} flag
 * @returns {NodeFrom | null}
 */
export function parseNodeFrom (value, flag) {
  if (value === undefined || value === null || value === '') return null
  const spec = String(value)
  const colon = spec.indexOf(':')
  const kind = spec.slice(0, colon)
  const rest = spec.slice(colon + 1)
  const usage = `must be cookie:NAME, header:NAME or event:NAME[.path] (e.g. cookie:SERVERID, header:x-node, event:node.name), got ${JSON.stringify(spec)}`
  if (colon <= 0 || !KINDS.includes(kind) || rest.length === 0 || rest.length > 200) throw invalidOption(flag, usage)
  if (kind === 'event') {
    const dot = rest.indexOf('.')
    const name = dot === -1 ? rest : rest.slice(0, dot)
    if (name.length === 0) throw invalidOption(flag, usage)
    return { spec, kind, name, path: dot === -1 ? null : parseFieldPath(rest.slice(dot + 1), flag) }
  }
  if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(rest)) throw invalidOption(flag, `${usage}: ${kind} names are HTTP tokens (letters, digits, - _ . and a few more)`)
  return { spec, kind: /** @type {'cookie' | 'header'} */ (kind), name: kind === 'header' ? rest.toLowerCase() : rest, path: null }
}

/**
 * A node's name as read from a cookie, header or event value: a string or number, trimmed
 * and bounded; null when the value names no node.
 * @param {unknown} value
 * @returns {string | null}
 */
export function nodeName (value) {
  if (typeof value === 'number' && Number.isFinite(value)) return String(value)
  if (typeof value !== 'string') return null
  const name = value.trim().slice(0, MAX_NODE_NAME_LENGTH)
  return name.length > 0 ? name : null
}

/**
 * Largest ÷ smallest of the nodes that hold clients at the end (the `other` row left out):
 * 1 = even; null when no named node holds a client.
 * @param {{ name: string, folded?: number, connected: number }[]} rows
 * @returns {number | null}
 */
export function imbalanceOf (rows) {
  const counts = rows.filter((r) => !r.folded && r.connected > 0).map((r) => r.connected)
  if (counts.length === 0) return null
  return Math.round(Math.max(...counts) / Math.min(...counts) * 1000) / 1000
}

/**
 * Merges per-node reports of several processes (workers, simulators): rows of one name
 * summed, delay histograms (relative, absolute) merged; the names past MAX_NODE_NAMES (most connects first) are
 * folded into `other` again; imbalance from the merged counts. Undefined when none has one.
 * @param {(import('../schema/result-schema.js').NodeReport | undefined | null)[]} reports
 * @returns {import('../schema/result-schema.js').NodeReport | undefined}
 */
export function mergeNodeReports (reports) {
  const present = /** @type {import('../schema/result-schema.js').NodeReport[]} */ (reports.filter(Boolean))
  if (present.length === 0) return undefined
  /** @type {Map<string, import('../schema/result-schema.js').NodeRow[]>} */
  const byName = new Map()
  for (const row of present.flatMap((r) => r.nodes)) {
    const key = row.folded ? `\u0000${OTHER_NODE}` : row.name
    byName.set(key, [...(byName.get(key) ?? []), row])
  }
  const named = [...byName].filter(([key]) => !key.startsWith('\u0000')).map(([, rows]) => sumRows(rows))
  named.sort((a, b) => b.connects - a.connects || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  const foldedRows = [...(byName.get(`\u0000${OTHER_NODE}`) ?? []), ...named.slice(MAX_NODE_NAMES)]
  const nodes = named.slice(0, MAX_NODE_NAMES)
  if (foldedRows.length > 0) nodes.push({ ...sumRows(foldedRows), name: OTHER_NODE, folded: foldedRows.reduce((n, r) => n + (r.folded || 1), 0) })
  return {
    from: present[0].from,
    nodes,
    unknown: present.reduce((n, r) => n + r.unknown, 0),
    moved: nodes.reduce((n, r) => n + r.moved, 0),
    imbalance: imbalanceOf(nodes)
  }
}

/**
 * @param {import('../schema/result-schema.js').NodeRow[]} rows one node's, from several processes
 * @returns {import('../schema/result-schema.js').NodeRow}
 */
function sumRows (rows) {
  const sum = (/** @type {'connected' | 'connects' | 'drops' | 'moved' | 'received' | 'missing'} */ key) => rows.reduce((n, r) => n + r[key], 0)
  const relative = mergeEncoded(rows.map((r) => r.relative.histogram))
  // Rows of older results have no absolute delays: merged from those that do.
  const absolutes = rows.flatMap((r) => (r.absolute ? [r.absolute.histogram] : []))
  const absolute = absolutes.length > 0 ? mergeEncoded(absolutes) : null
  return {
    name: rows[0].name,
    connected: sum('connected'),
    connects: sum('connects'),
    drops: sum('drops'),
    moved: sum('moved'),
    received: sum('received'),
    missing: sum('missing'),
    relative: { ...summarize(relative), histogram: encode(relative) },
    ...(absolute ? { absolute: { ...summarize(absolute), histogram: encode(absolute) } } : {})
  }
}
