/**
 * Redis key names and bounds (documented in results/README.md). Every key of a run starts
 * with `ioswarm:{<runId>}:`; the braces are a Redis Cluster hash tag, so a whole run lives
 * in one slot and the multi-key script and transactions below stay legal on a cluster.
 */

/** The run registry: a sorted set of run ids scored by their start time (epoch ms). */
export const RUNS_KEY = 'ioswarm:runs'

/** Bounds that keep a run's memory finite (both backends). */
export const LIMITS = Object.freeze({
  /** Message reports per run: 20 simulators × 10,000 messages. Beyond it reports are refused. */
  messageReports: 200_000,
  /** One-second samples per run (simulators together), and separately for servers: 20 simulators × ~7 h. */
  samples: 500_000
})

/**
 * The keys of one run.
 * @param {string} runId checked by checkId (no braces)
 */
export function runKeys (runId) {
  const prefix = `ioswarm:{${runId}}:`
  return {
    prefix,
    /** hash: id, name, startedAt, options (JSON) */
    meta: `${prefix}meta`,
    /** hash: simId → SimulatorInfo JSON */
    simulators: `${prefix}simulators`,
    /** hash: simId → epoch ms of the last heartbeat */
    heartbeats: `${prefix}heartbeats`,
    /** hash: simId → FinalReport JSON */
    finals: `${prefix}finals`,
    /** hash: simId → ClockInfo JSON (the latest, from reportClock or reportFinal) */
    clocks: `${prefix}clocks`,
    /** hash: simId → latest TimelinePoint JSON */
    last: `${prefix}last`,
    /** stream: sim, key, report (MessageReport JSON) */
    messages: `${prefix}messages`,
    /** hash: `simId|messageKey` → id of its entry in the messages stream (dedupe) */
    messageIndex: `${prefix}message-index`,
    /** hash: simId → message reports refused past the bound (LIMITS.messageReports) */
    refused: `${prefix}refused`,
    /** stream: sim, timeline (TimelinePoint JSON), health (ProcessSample JSON) */
    samples: `${prefix}samples`,
    /** stream: server, sample (ServerSample JSON) */
    serverSamples: `${prefix}server-samples`,
    /** stream: sim, report (WindowReport JSON): each simulator's windows (--window), as they close */
    windows: `${prefix}windows`,
    /** pub/sub channel (not a key): control messages such as {"type":"stop"} */
    control: `${prefix}control`,
    /** string with a PX TTL: alive while it exists; value = epoch ms of the heartbeat */
    heartbeat: (/** @type {string} */ simId) => `${prefix}hb:${simId}`
  }
}

/**
 * Stores a message report once per (simulator, message): HSETNX-like check on the index
 * hash, then XADD, atomically. Returns 1 stored, 0 duplicate (ignored), -1 bound reached.
 * A refused report is counted in KEYS[3] under its simulator.
 * KEYS: messageIndex, messages, refused. ARGV: field, simId, messageKey, report JSON, max reports.
 */
export const REPORT_MESSAGE_LUA = `
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 1 then return 0 end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[5]) then redis.call('HINCRBY', KEYS[3], ARGV[2], 1) return -1 end
local id = redis.call('XADD', KEYS[2], 'MAXLEN', '~', ARGV[5], '*', 'sim', ARGV[2], 'key', ARGV[3], 'report', ARGV[4])
redis.call('HSET', KEYS[1], ARGV[1], id)
return 1
`

/**
 * Drops a run's message reports up to a stream id (inclusive), and their dedupe fields, at most
 * ARGV[2] of them: a run without rounds rolls its lines up as they come (results/follow/lines.js) and
 * frees them here, so neither Redis nor the bound (LIMITS.messageReports) grows with its lines.
 * KEYS: messages, messageIndex. ARGV: last id, count. Returns how many were dropped.
 */
export const DROP_MESSAGES_LUA = `
local entries = redis.call('XRANGE', KEYS[1], '-', ARGV[1], 'COUNT', tonumber(ARGV[2]))
for _, entry in ipairs(entries) do
  local f = entry[2]
  redis.call('HDEL', KEYS[2], f[2] .. '|' .. f[4])
  redis.call('XDEL', KEYS[1], entry[1])
end
return #entries
`
