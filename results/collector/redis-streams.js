/**
 * Reading the Redis collector's streams (messages, samples, server samples): whole, for the
 * end-of-run queries, or after a cursor, for a live reader (readSince).
 */

/**
 * @typedef {import('ioredis').Redis} Redis
 * @typedef {import('./types.js').ReadCursor} ReadCursor
 * @typedef {import('./types.js').NewRecords} NewRecords
 */

/** The cursor before the first entry of every stream (XREAD ids are exclusive). */
const START = Object.freeze({ messages: '0-0', samples: '0-0', serverSamples: '0-0' })

/**
 * A stream entry's field list as an object.
 * @param {string[]} fields name, value, name, value, …
 * @returns {Record<string, string>}
 */
function fieldsOf (fields) {
  /** @type {Record<string, string>} */
  const entry = {}
  for (let i = 0; i + 1 < fields.length; i += 2) entry[fields[i]] = fields[i + 1]
  return entry
}

/**
 * Every entry of a stream, read in pages (exclusive start ids need Redis ≥ 6.2).
 * @param {Redis} redis
 * @param {string} key
 * @param {number} pageSize
 * @param {number} maxEntries the stream's bound
 * @returns {Promise<Record<string, string>[]>} each entry's fields
 */
export async function readStream (redis, key, pageSize, maxEntries) {
  /** @type {Record<string, string>[]} */
  const entries = []
  let start = '-'
  // MAXLEN ~ may keep up to one stream node (100 entries by default) past the bound.
  for (let page = 0; page <= maxEntries / pageSize + 2; page++) {
    const batch = await redis.xrange(key, start, '+', 'COUNT', pageSize)
    for (const [, fields] of batch) entries.push(fieldsOf(fields))
    if (batch.length < pageSize) break
    start = `(${batch[batch.length - 1][0]}`
  }
  return entries
}

/**
 * The entries of a run's three streams after `cursor`: one XREAD (the run's keys share one
 * slot, its hash tag, so this stays legal on a cluster), at most `limit` per stream.
 * @param {Redis} redis
 * @param {{ messages: string, samples: string, serverSamples: string }} keys the run's stream keys
 * @param {ReadCursor | null} cursor checked
 * @param {number} limit checked
 * @returns {Promise<NewRecords>}
 */
export async function readNewEntries (redis, keys, cursor, limit) {
  const from = cursor ?? START
  const reply = await redis.xread('COUNT', limit, 'STREAMS', keys.messages, keys.samples, keys.serverSamples, from.messages, from.samples, from.serverSamples)
  const got = new Map((reply ?? []).map(([key, entries]) => [key, entries]))
  /** @param {string} key @param {string} start */
  const stream = (key, start) => {
    const entries = got.get(key) ?? []
    return { fields: entries.map(([, f]) => fieldsOf(f)), next: entries.at(-1)?.[0] ?? start, full: entries.length >= limit }
  }
  const [m, s, v] = [stream(keys.messages, from.messages), stream(keys.samples, from.samples), stream(keys.serverSamples, from.serverSamples)]
  return {
    messages: m.fields.map((e) => ({ simulator: e.sim, report: JSON.parse(e.report) })),
    samples: s.fields.map((e) => ({
      simulator: e.sim, timeline: JSON.parse(e.timeline), health: JSON.parse(e.health), ...(e.figures ? { figures: JSON.parse(e.figures) } : {})
    })),
    serverSamples: v.fields.map((e) => ({ ...JSON.parse(e.sample), server: e.server })),
    cursor: { messages: m.next, samples: s.next, serverSamples: v.next },
    more: m.full || s.full || v.full
  }
}
