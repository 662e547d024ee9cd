/**
 * The collector: where simulators report what they measured and where the runner and the
 * broadcaster read the totals across simulators. One interface, two backends: in memory
 * (one runner and its locally forked simulators) and Redis (simulators on any host).
 */
import { createMemoryCollector } from './memory.js'
import { createRedisCollector } from './redis.js'

/**
 * @typedef {import('./types.js').Collector} Collector
 * @typedef {import('./types.js').CollectorWriter} CollectorWriter
 */

/**
 * A connected collector: Redis when redisUrl is given (rejects with IOSWARM_ERR_COLLECTOR
 * when Redis cannot be reached), else in memory.
 * @param {{ redisUrl?: string | null, maxMessageReports?: number, maxSamples?: number }} [options]
 * @returns {Promise<Collector>}
 */
export async function createCollector ({ redisUrl, ...limits } = {}) {
  return redisUrl ? createRedisCollector({ redisUrl, ...limits }) : createMemoryCollector(limits)
}

export { createMemoryCollector, createRedisCollector }
// The writer a simulator forked by a runner reports through: this part's entry is what a
// simulator imports from results/, without the reports and metrics of results/index.js.
export { createIpcWriter } from '../ipc.js'
export { finalReportOf } from '../measures.js'
export { WRITE_METHODS } from './types.js'
export { redactUrl } from '../../lib/redis.js'
export { runKeys, RUNS_KEY, LIMITS } from '../../lib/collector-keys.js'
