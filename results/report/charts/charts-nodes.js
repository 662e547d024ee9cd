/**
 * The chart of which node served whom (--node-from): clients connected on each node of the
 * deployment behind the balancer, second by second, summed over the simulators. It shows how
 * the balancer spread the ramp, and where a dead node's clients went.
 */
import { axis, chartConfig, color, line, secondsAxis, spec, tint } from './chart-config.js'
import { sumPerSecond } from './charts-time.js'

/**
 * @typedef {import('../../../lib/schema/result-schema.js').DistributionResult} DistributionResult
 * @typedef {import('../html.js').ChartSpec} ChartSpec
 */

/**
 * The node names of a distribution, in the order of its node report (most connects first),
 * then any name only the samples know.
 * @param {DistributionResult} d
 * @returns {string[]}
 */
function nodeNames (d) {
  const names = new Set((d.nodes?.nodes ?? []).map((n) => n.name))
  for (const p of d.timeline) for (const name of Object.keys(p.byNode ?? {})) names.add(name)
  return [...names]
}

/**
 * Connected clients per node across the run, stacked (one band per node: `other` holds the
 * names past the first 50).
 * @param {DistributionResult} d
 * @param {string} prefix
 * @returns {ChartSpec}
 */
export function nodeChart (d, prefix) {
  const title = 'Connected clients per node'
  const names = nodeNames(d)
  if (names.length === 0) return spec(`${prefix}-connected-node`, title, '', null, 'no data: no --node-from in this run (or no client learned its node)')
  const totals = sumPerSecond(d, (p) => p.byNode, names)
  const config = chartConfig('line', {
    datasets: names.map((name, k) => {
      const stacked = { fill: k === 0 ? 'origin' : '-1', backgroundColor: tint(color(k), 0.35) }
      return line(name, totals.map((p) => ({ x: p.second, y: p[name] })), color(k), stacked)
    })
  }, { x: secondsAxis(), y: axis('connected clients', { stacked: true, beginAtZero: true }) })
  const from = d.nodes ? ` (--node-from ${d.nodes.from}; imbalance at the end ${d.nodes.imbalance ?? '-'}, moved ${d.nodes.moved})` : ''
  const caption = `each node's clients, stacked, as the simulators read them${from}: how the balancer spread the swarm, and where a dead node's clients went`
  return spec(`${prefix}-connected-node`, title, caption, config, 'no data: no simulator sampled clients per node')
}
