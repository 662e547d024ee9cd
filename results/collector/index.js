/**
 * The collector: where simulators report what they measured and where the runner and the
 * broadcaster read the totals across simulators. One interface, two backends: in memory
 * (one runner and its locally forked simulators) and Redis (simulators on any host).
 */

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
  return redisUrl ? createRedisCollector({ redisUrl, ...limits }) : (await import('./memory.js')).createMemoryCollector(limits)
}

/**
 * The collector in Redis. Both backends (and the merging code they share) load when one is
 * created: a simulator forked by a runner reports over IPC and never loads them
 * (a process loads only what it uses).
 * @param {Parameters<typeof import('./redis.js').createRedisCollector>[0]} options
 * @returns {Promise<Collector>}
 */
export async function createRedisCollector (options) {
  return (await import('./redis.js')).createRedisCollector(options)
}
// The writer a simulator forked by a runner reports through: this part's entry is what a
// simulator imports from results/, without the reports and metrics of results/index.js, and
// without Redis' key names and URL redaction (lib/schema/collector-keys.js, lib/redis.js: their users
// import them from lib/).
export { createIpcWriter } from './ipc.js'
export { finalReportOf } from '../merge/measures.js'
export { refusedOf } from '../merge/refused.js'
export { WRITE_METHODS } from './types.js'
