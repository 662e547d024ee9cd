/**
 * Which node served whom (--node-from) for people: terminal lines for simulate's and run's
 * summaries, and the `nodes.imbalance` threshold.
 */
import { formatMs, table } from '../../lib/text/format.js'

/** Node rows printed; the rest are in --json (at most 51 in a result). */
const MAX_NODE_ROWS = 20

/**
 * A table of the nodes and one line with the imbalance, moves and clients of no known node.
 * @param {import('../../lib/schema/result-schema.js').NodeReport | undefined} report
 * @returns {string[]} no lines without --node-from
 */
export function formatNodes (report) {
  if (!report) return []
  const rows = report.nodes.slice(0, MAX_NODE_ROWS).map((n) => [
    n.folded ? `${n.name} (${n.folded} names)` : n.name, n.connected, n.connects, n.drops, n.moved, n.received, n.missing,
    formatMs(n.relative.count ? n.relative.p50 : null), formatMs(n.relative.count ? n.relative.p99 : null),
    formatMs(n.absolute?.count ? n.absolute.p50 : null), formatMs(n.absolute?.count ? n.absolute.p99 : null)
  ])
  const imbalance = report.imbalance === null ? 'no node holds a client' : `${report.imbalance} (largest ÷ smallest node at the end)`
  const seen = report.nodes.length === 0 ? 'NONE READ: no client learned its node (is the cookie, header or event right?)' : `${report.nodes.length} seen`
  const header = ['node', 'connected', 'connects', 'drops', 'moved', 'received', 'missing', 'rel p50', 'rel p99', 'abs p50', 'abs p99']
  return [
    `nodes (${report.from}): ${seen}, ` +
      `imbalance ${imbalance}, moved ${report.moved} (clients back on another node after a reconnect)` +
      `${report.unknown > 0 ? `, ${report.unknown} connected clients of no known node` : ''}`,
    ...(rows.length > 0 ? [table(header, rows)] : []),
    ...(report.nodes.length > MAX_NODE_ROWS ? [`… ${report.nodes.length - MAX_NODE_ROWS} more nodes in --json`] : [])
  ]
}

/**
 * `nodes.imbalance`: the largest imbalance of any distribution (no node report: no data).
 * @param {import('../../lib/schema/result-schema.js').RunResult} result
 * @returns {{ value: number | null, actual: string }}
 */
export function measureImbalance (result) {
  /** @type {{ value: number, where: string } | null} */
  let worst = null
  for (const d of result.distributions) {
    const value = d.nodes?.imbalance
    if (typeof value === 'number' && (worst === null || value > worst.value)) worst = { value, where: d.name }
  }
  if (!worst) return { value: null, actual: 'nodes.imbalance: no data (no --node-from, or no client learned its node)' }
  return { value: worst.value, actual: `nodes.imbalance ${worst.value} (${worst.where})` }
}
