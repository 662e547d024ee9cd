/**
 * runBroadcast: fires rounds of messages through the app server on schedule. Each message
 * is sent at its intended time (round start + k × interval), never "after the previous one
 * returned", so a slow server shows up as late responses, not as a stretched schedule.
 */
import { setTimeout as sleep } from 'node:timers/promises'
import { monotonicMs, wallMs } from '../lib/measure/clock.js'
import { CODES, IoswarmError, invalidOption } from '../lib/errors.js'
import { parseHttpUrl, parseInteger, parseRounds } from '../lib/values/parsers.js'
import { randomBytes } from 'node:crypto'
import { DEFAULT_EVENT, broadcastRoom } from '../lib/protocol.js'
import { DEFAULT_ROUNDS } from '../lib/cli-options/tables/run.js'
import { MAX_BROADCAST_ROOMS, parseRoomName } from '../lib/cli-options/tables/broadcast.js'
import { parseNamespaces } from '../lib/values/parsers.js'
import { SCHEMA_VERSION } from '../lib/schema/result-schema.js'
import { createSender } from './senders.js'
import { parseMessageTemplate } from './template.js'
import { compilePublish, summarizePublish } from './publisher.js'

export { compilePublish } from './publisher.js'
export { parseMessageTemplate } from './template.js'

/** The 2012 election-night test's three rounds: 10 messages 5 s apart, then 2 s, then 1 s. */
export { DEFAULT_ROUNDS }

/**
 * @typedef {object} SentMessage
 * @property {string} id
 * @property {string} batch this invocation's batch id (in every message it sent)
 * @property {number} round
 * @property {number} seq
 * @property {number} intendedAt wall-clock epoch ms the schedule asked for
 * @property {number} requestedAt when the request left (epoch ms)
 * @property {number | null} sentAt the server's emit time, from its answer
 * @property {number | null} requestMs round trip of the trigger request
 * @property {number | null} status the HTTP status a --publish request got (null: other senders, or no answer)
 * @property {number | null} recipients clients the server counted when it emitted
 * @property {string | null} room the room it was sent to; null = everyone
 * @property {string | null} error
 */

/**
 * @typedef {object} BroadcastOptions
 * @property {string} url
 * @property {string} token
 * @property {string} [event]
 * @property {number | string} [size] payload bytes
 * @property {string | import('../lib/values/parsers.js').Round[]} [rounds]
 * @property {'http' | 'socket' | 'redis-emitter'} [via]
 * @property {string | null} [redis] Redis URL for via redis-emitter
 * @property {string | null} [message] JSON template of the message (placeholders {{id}} {{batch}} {{round}} {{seq}} {{sentAt}} {{payload}} {{room}})
 * @property {number | string | null} [rooms] message k of a round to room-{(k-1) mod rooms}
 * @property {string | null} [room] every message to this room (`--to`)
 * @property {string | string[] | null} [namespaces] into each of these namespaces (default: the server's own; / for redis-emitter)
 * @property {string | null} [publish] `METHOD URL`: each message is this HTTP request to the app's own API (no token)
 * @property {string | string[] | null} [publishHeader] `Name: value` headers of each publish request (templates; {{env.NAME}} too)
 * @property {string | null} [publishSign] `pusher:KEY:SECRET`: sign each publish request as Pusher's HTTP API wants
 * @property {number} [firstRound] number of the first round (default 1): a caller that broadcasts again to the same
 *   simulators (`ioswarm capacity`, one call per step) keeps message ids apart for servers that do not echo the batch
 */

const VIAS = ['http', 'socket', 'redis-emitter']

/**
 * @param {BroadcastOptions} input
 * @param {{ signal?: AbortSignal, onMessage?: (m: SentMessage) => void, onRoundEnd?: (round: number, messages: SentMessage[]) => Promise<void> | void }} [hooks]
 */
export async function runBroadcast (input, hooks = {}) {
  const options = normalize(input)
  const sender = await createSender(options)
  /** @type {SentMessage[]} */
  const messages = []
  const startedAt = wallMs()
  /** @type {{ error: IoswarmError | null }} */
  const fatal = { error: null }
  try {
    for (const [index, round] of options.rounds.entries()) {
      if (hooks.signal?.aborted) break
      const roundNo = options.firstRound + index
      const roundMono = monotonicMs()
      /** @type {Promise<SentMessage>[]} */
      const pending = []
      for (let k = 0; k < round.count && !hooks.signal?.aborted && !fatal.error; k++) {
        await sleepUntil(roundMono + k * round.intervalMs, hooks.signal)
        if (hooks.signal?.aborted || fatal.error) break
        pending.push(fire(sender, options, roundNo, k + 1, fatal).then((m) => {
          hooks.onMessage?.(m)
          return m
        }))
      }
      const sent = await Promise.all(pending)
      messages.push(...sent)
      if (fatal.error) throw fatal.error
      if (messages.length > 0 && messages.every((m) => m.error)) {
        throw new IoswarmError(CODES.BROADCAST, `every broadcast so far failed: ${messages[0].error}`)
      }
      // The interval also follows the round's last message, before the next round starts.
      await sleepUntil(roundMono + round.count * round.intervalMs, hooks.signal)
      await hooks.onRoundEnd?.(roundNo, sent)
    }
  } finally {
    await sender.close()
  }
  return {
    schemaVersion: SCHEMA_VERSION,
    kind: 'broadcast',
    batch: options.batch,
    url: options.url,
    via: options.via,
    event: options.event,
    message: options.template?.text ?? null,
    sizeBytes: options.size,
    rooms: options.rooms,
    room: options.room,
    namespaces: options.namespaces,
    rounds: options.rounds,
    publish: options.publish ? summarizePublish(options.publish, messages) : null,
    startedAt: Math.round(startedAt),
    endedAt: Math.round(wallMs()),
    messages
  }
}

/**
 * @param {Awaited<ReturnType<typeof createSender>>} sender
 * @param {ReturnType<typeof normalize>} options
 * @param {number} round
 * @param {number} seq
 * @param {{ error: IoswarmError | null }} fatal set when the server refuses us for good (bad token)
 * @returns {Promise<SentMessage>} never rejects: it runs unawaited while the schedule goes on
 */
async function fire (sender, options, round, seq, fatal) {
  const requestedAt = wallMs()
  const startMono = monotonicMs()
  const room = broadcastRoom({ room: options.room, rooms: options.rooms, seq })
  /** @type {SentMessage} */
  const message = {
    id: `${round}.${seq}`,
    batch: options.batch,
    round,
    seq,
    intendedAt: requestedAt,
    requestedAt,
    sentAt: null,
    requestMs: null,
    recipients: null,
    status: null,
    room,
    error: null
  }
  try {
    const [answer] = await sender.send({
      event: options.event,
      size: options.size,
      round,
      seq,
      count: 1,
      batch: options.batch,
      ...(options.room === null ? {} : { room: options.room }),
      ...(options.rooms === null ? {} : { rooms: options.rooms }),
      ...(options.namespaces === null ? {} : { namespace: options.namespaces })
    })
    const requestMs = monotonicMs() - startMono
    return { ...message, sentAt: answer.sentAt, recipients: answer.recipients, requestMs, status: answer.status ?? null, error: answer.error ?? null }
  } catch (error) {
    if (error instanceof IoswarmError && (error.code === CODES.PUBLISH_REFUSED || /refused the token/.test(error.message))) fatal.error ??= error
    return { ...message, error: /** @type {Error} */ (error).message }
  }
}

/**
 * @param {number} targetMono
 * @param {AbortSignal | undefined} signal
 */
async function sleepUntil (targetMono, signal) {
  const waitMs = targetMono - monotonicMs()
  if (waitMs > 0) await sleep(waitMs, undefined, { signal }).catch(() => {})
}

/**
 * @param {BroadcastOptions} input
 */
function normalize (input) {
  const via = input.via ?? 'http'
  if (!VIAS.includes(via)) throw invalidOption('--via', `must be one of ${VIAS.join(', ')}, got ${JSON.stringify(via)}`)
  if (via === 'redis-emitter' && !input.redis) throw invalidOption('--redis', 'is required with --via redis-emitter: the Redis of the server\'s Redis adapter')
  const publish = input.publish ? compilePublish({ publish: input.publish, headers: input.publishHeader, sign: input.publishSign }) : null
  if (!publish && (input.publishHeader?.length || input.publishSign)) {
    throw invalidOption(input.publishSign ? '--publish-sign' : '--publish-header', 'goes with --publish: the headers and signature of its requests')
  }
  if (via !== 'redis-emitter' && !publish && !input.token) {
    throw invalidOption('--token', 'is required (or IOSWARM_TOKEN): the server\'s broadcast token, printed by `ioswarm serve`')
  }
  const rooms = input.rooms === undefined || input.rooms === null ? null : parseInteger(input.rooms, '--rooms', { min: 1, max: MAX_BROADCAST_ROOMS })
  const room = input.room === undefined || input.room === null ? null : parseRoomName(input.room, '--to')
  if (rooms !== null && room !== null) {
    throw invalidOption('--to', 'and --rooms cannot both be given: --to sends every message to one room, --rooms goes round-robin over room-0 … room-{R-1}')
  }
  return {
    rooms,
    room,
    publish,
    namespaces: parseNamespaces(input.namespaces ?? null, '--namespace'),
    // One per invocation, in every message: a second `ioswarm broadcast` while the same
    // simulators run sends ids 1.1, 1.2, … again, and the batch keeps them apart.
    batch: randomBytes(3).toString('hex'),
    url: parseHttpUrl(input.url, '--url'),
    token: input.token ?? '',
    redisUrl: input.redis ?? null,
    template: input.message ? parseMessageTemplate(String(input.message)) : null,
    event: input.event ?? DEFAULT_EVENT,
    size: parseInteger(input.size ?? 0, '--size', { min: 0, max: 10 * 1024 * 1024 }),
    rounds: Array.isArray(input.rounds) ? input.rounds : parseRounds(input.rounds ?? DEFAULT_ROUNDS),
    firstRound: parseInteger(input.firstRound ?? 1, 'firstRound', { min: 1, max: 1_000_000 }),
    via: /** @type {'http' | 'socket' | 'redis-emitter'} */ (via)
  }
}
