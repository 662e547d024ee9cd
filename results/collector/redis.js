/**
 * The Redis collector: simulators on any host write to one Redis; the runner reads the
 * merged results. Layout in keys.js and results/README.md. Writes are one round trip each
 * (a script or a MULTI); reads page through streams.
 */
import { redisTimeReader } from '../../lib/measure/clock-offset.js'
import { CODES, IoswarmError } from '../../lib/errors.js'
import { mergeMessageReports, groupRounds } from '../merge/aggregate.js'
import { messageResults } from '../merge/message-results.js'
import { deliveryBreakdown } from '../merge/delivery-rows.js'
import { DROP_MESSAGES_LUA, LIMITS, REPORT_MESSAGE_LUA, RUNS_KEY, runKeys } from '../../lib/schema/collector-keys.js'
import { tooManyReports } from './memory.js'
import { connectRedis, redactText, redactUrl } from '../../lib/redis.js'
import { createControl } from './redis-control.js'
import { readNewEntries, readStream } from './redis-streams.js'
import {
  READ_LIMIT, assembleSamples, checkId, checkRead, checkMessageDrop, checkMessageReport, checkTtl, checkWindowDrop, checkWindowRead, checkWindowReport,
  compareText, finalsList, simulatorStatus
} from './status.js'

/**
 * @typedef {import('./types.js').Collector} Collector
 * @typedef {import('ioredis').Redis} Redis
 */

/** @template T @param {Record<string, string>} hash @returns {Map<string, T>} */
const parseHash = (hash) => new Map(Object.entries(hash).map(([k, v]) => [k, JSON.parse(v)]))

/**
 * A Redis collector, connected (rejects with IOSWARM_ERR_COLLECTOR when Redis cannot be used).
 * @param {{ redisUrl: string, maxMessageReports?: number, maxSamples?: number }} options
 * @returns {Promise<Collector>}
 */
export async function createRedisCollector ({ redisUrl, maxMessageReports = LIMITS.messageReports, maxSamples = LIMITS.samples }) {
  const redis = await connectRedis(redisUrl)
  // Returned by way of withCollectorErrors: callers see IoswarmErrors, never ioredis ones.
  redis.defineCommand('ioswarmReportMessage', { numberOfKeys: 3, lua: REPORT_MESSAGE_LUA })
  redis.defineCommand('ioswarmDropMessages', { numberOfKeys: 2, lua: DROP_MESSAGES_LUA })
  const control = createControl(redis)
  const keys = (/** @type {string} */ runId) => runKeys(checkId(runId, 'run id'))
  const sim = (/** @type {string} */ simId) => checkId(simId, 'simulator id')

  /** @param {string} runId */
  async function messageEntries (runId) {
    const k = keys(runId)
    const [entries, clocks] = await Promise.all([readStream(redis, k.messages, 1000, maxMessageReports), redis.hgetall(k.clocks)])
    return {
      entries: entries.map((e) => ({ simulator: e.sim, report: JSON.parse(e.report) })),
      clocks: Object.fromEntries(parseHash(clocks))
    }
  }

  return withCollectorErrors(redisUrl, {
    kind: 'redis',
    /** The reference clock of a run across hosts: Redis TIME, in epoch ms. */
    time: redisTimeReader(redis),
    async registerRun (runId, { name, startedAt, options }) {
      const k = keys(runId)
      await Promise.all([
        redis.hset(k.meta, { id: runId, name, startedAt: String(startedAt), options: JSON.stringify(options) }),
        redis.zadd(RUNS_KEY, startedAt, runId)
      ])
    },
    async registerSimulator (runId, info) {
      await redis.hset(keys(runId).simulators, sim(info.id), JSON.stringify(info))
    },
    async heartbeat (runId, simId, ttlMs) {
      const k = keys(runId)
      const now = String(Date.now())
      await redis.multi()
        .set(k.heartbeat(sim(simId)), now, 'PX', checkTtl(ttlMs))
        .hset(k.heartbeats, simId, now)
        .exec()
    },
    async reportMessage (runId, simId, report) {
      const k = keys(runId)
      const { key } = checkMessageReport(report)
      const stored = await /** @type {any} */ (redis).ioswarmReportMessage(k.messageIndex, k.messages, k.refused,
        `${sim(simId)}|${key}`, simId, key, JSON.stringify(report), maxMessageReports)
      if (stored === -1) throw tooManyReports(runId, maxMessageReports)
    },
    async reportSample (runId, simId, { timeline, health, figures }) {
      const k = keys(runId)
      // The second's figures only when the clients emitted, or a scenario recorded, in it.
      const fields = figures ? ['figures', JSON.stringify(figures)] : []
      await redis.multi()
        .xadd(k.samples, 'MAXLEN', '~', maxSamples, '*', 'sim', sim(simId), 'timeline', JSON.stringify(timeline), 'health', JSON.stringify(health), ...fields)
        .hset(k.last, simId, JSON.stringify(timeline))
        .exec()
    },
    async reportServerSample (runId, serverId, sample) {
      await redis.xadd(keys(runId).serverSamples, 'MAXLEN', '~', maxSamples, '*', 'server', checkId(serverId, 'server id'), 'sample', JSON.stringify(sample))
    },
    async reportFinal (runId, simId, final) {
      const k = keys(runId)
      await redis.multi()
        .hset(k.finals, sim(simId), JSON.stringify(final))
        .hset(k.clocks, simId, JSON.stringify(final.clock))
        .exec()
    },
    async reportClock (runId, simId, clock) {
      await redis.hset(keys(runId).clocks, sim(simId), JSON.stringify(clock))
    },
    async reportWindow (runId, simId, report) {
      await redis.xadd(keys(runId).windows, 'MAXLEN', '~', maxSamples, '*', 'sim', sim(simId), 'report', JSON.stringify(checkWindowReport(report)))
    },

    async listRuns () {
      const ids = await redis.zrange(RUNS_KEY, 0, -1)
      const metas = await Promise.all(ids.map((id) => redis.hgetall(runKeys(id).meta)))
      return metas.flatMap((m) => m.id
        ? [{ id: m.id, name: m.name, startedAt: Number(m.startedAt), options: JSON.parse(m.options) }]
        : [])
    },
    async listSimulators (runId) {
      const k = keys(runId)
      const [infos, finals, clocks, last, heartbeats] = await Promise.all(
        [k.simulators, k.finals, k.clocks, k.last, k.heartbeats].map((key) => redis.hgetall(key)))
      const simulators = [...parseHash(infos).values()].sort((a, b) => compareText(a.id, b.id))
      const alive = await Promise.all(simulators.map((s) => redis.exists(k.heartbeat(s.id))))
      const [f, c, l] = [parseHash(finals), parseHash(clocks), parseHash(last)]
      return simulators.map((info, i) => simulatorStatus(info, {
        alive: alive[i] === 1,
        lastHeartbeatAt: heartbeats[info.id] ? Number(heartbeats[info.id]) : null,
        final: f.get(info.id) ?? null,
        clock: c.get(info.id) ?? null,
        last: l.get(info.id) ?? null
      }))
    },
    async getMessages (runId) {
      const { entries, clocks } = await messageEntries(runId)
      return mergeMessageReports(entries, clocks)
    },
    async getRounds (runId, planned) {
      const { entries, clocks } = await messageEntries(runId)
      return groupRounds(entries, clocks, planned)
    },
    async getDeliveries (runId, options) {
      const { entries, clocks } = await messageEntries(runId)
      return deliveryBreakdown(entries, clocks, options)
    },
    async getMessageResults (runId, { planned, topRooms } = {}) {
      const { entries, clocks } = await messageEntries(runId)
      return messageResults(entries, clocks, planned, topRooms)
    },
    async getSamples (runId) {
      const k = keys(runId)
      const [samples, server] = await Promise.all([readStream(redis, k.samples, 5000, maxSamples), readStream(redis, k.serverSamples, 5000, maxSamples)])
      return assembleSamples(
        samples.map((e) => ({ simulator: e.sim, timeline: JSON.parse(e.timeline), health: JSON.parse(e.health) })),
        server.map((e) => ({ ...JSON.parse(e.sample), server: e.server })))
    },
    async getRefused (runId) {
      const counts = await redis.hgetall(keys(runId).refused)
      return { limit: maxMessageReports, bySimulator: Object.fromEntries(Object.entries(counts).map(([s, n]) => [s, Number(n)])) }
    },
    async getFinals (runId) {
      return finalsList(parseHash(await redis.hgetall(keys(runId).finals)))
    },
    async readWindows (runId, cursor, limit = READ_LIMIT) {
      const read = checkWindowRead(cursor, limit)
      const entries = await redis.xrange(keys(runId).windows, read.cursor === null ? '-' : `(${read.cursor}`, '+', 'COUNT', read.limit)
      return {
        windows: entries.map(([, fields]) => ({ simulator: fields[fields.indexOf('sim') + 1], report: JSON.parse(fields[fields.indexOf('report') + 1]) })),
        cursor: entries.at(-1)?.[0] ?? read.cursor ?? '0-0',
        more: entries.length >= read.limit
      }
    },
    async dropWindows (runId, cursor) {
      // MINID keeps the ids from the one given on: the entry after the cursor's.
      const [ms, seq = '0'] = checkWindowDrop(cursor).split('-')
      await redis.xtrim(keys(runId).windows, 'MINID', `${ms}-${BigInt(seq) + 1n}`)
    },
    async readSince (runId, cursor, limit = READ_LIMIT) {
      const read = checkRead(cursor, limit)
      return readNewEntries(redis, keys(runId), read.cursor, read.limit)
    },
    async dropMessages (runId, upTo) {
      const k = keys(runId)
      const last = checkMessageDrop(upTo)
      // In batches (one script each, bounded): a follower drops what it read, at most a few pages.
      for (let batch = 0; batch < 10_000; batch++) {
        const dropped = await /** @type {any} */ (redis).ioswarmDropMessages(k.messages, k.messageIndex, last, READ_LIMIT)
        if (dropped < READ_LIMIT) return
      }
    },

    publishControl: (runId, message) => control.publish(keys(runId).control, message),
    subscribeControl: (runId, handler) => control.subscribe(keys(runId).control, handler),
    async deleteRun (runId) {
      const k = keys(runId)
      const simIds = await redis.hkeys(k.simulators)
      await Promise.all([
        redis.unlink(k.meta, k.simulators, k.heartbeats, k.finals, k.clocks, k.last, k.messages,
          k.messageIndex, k.refused, k.samples, k.serverSamples, k.windows, ...simIds.map(k.heartbeat)),
        redis.zrem(RUNS_KEY, runId)
      ])
    },
    async close () {
      await control.close()
      await redis.quit().catch(() => redis.disconnect())
    }
  })
}

/**
 * Turns a failed Redis command into IOSWARM_ERR_COLLECTOR naming the method and the
 * (redacted) URL; IoswarmErrors (bad ids, bound reached) pass through.
 * @param {string} url
 * @param {Collector} collector
 * @returns {Collector}
 */
function withCollectorErrors (url, collector) {
  const wrapped = /** @type {Record<string, unknown>} */ ({ ...collector })
  for (const [name, value] of Object.entries(collector)) {
    if (typeof value !== 'function') continue
    const method = /** @type {(...args: unknown[]) => Promise<unknown>} */ (value)
    wrapped[name] = async (/** @type {unknown[]} */ ...args) => {
      try {
        return await method(...args)
      } catch (err) {
        if (err instanceof IoswarmError) throw err
        throw new IoswarmError(CODES.COLLECTOR, `Redis at ${redactUrl(url)}: ${name} failed: ${redactText(/** @type {Error} */ (err).message, url)}`)
      }
    }
  }
  return /** @type {Collector} */ (/** @type {unknown} */ (wrapped))
}
