/**
 * Options of `ioswarm capacity` (the capacity search) of its own. It also takes the server,
 * target, broadcast and output options of `run` (their rows in run.js list 'capacity') and
 * every simulator option (passOn); --clients only with --vary emit-rate (otherwise the search sets the clients).
 */
import { invalidOption } from '../../errors.js'
import { parseDurationMs, parseInteger, parseRounds } from '../../values/parsers.js'
import { MAX_CLIENTS } from '../../values/option-values.js'
import { defineOptions } from '../define.js'

/** Rounds each step broadcasts: three messages a second apart. */
const CAPACITY_ROUNDS = '3x1000'

/** What a search may vary: the clients (their emit rate each), or the emit rate of --clients clients. */
const VARY = Object.freeze(['clients', 'emit-rate'])

/** Narrowest and widest --precision, in percent. */
const PRECISION_PCT = Object.freeze({ min: 0.1, max: 50 })

/**
 * `5%` (or `5`) → 0.05: the search stops when the first failing step is within this share
 * above the last passing one.
 * @param {unknown} value
 * @param {string} flag
 */
export function parsePrecision (value, flag) {
  const match = /^(\d+(?:\.\d+)?)\s*%?$/.exec(String(value).trim())
  const pct = match ? Number(match[1]) : NaN
  if (!Number.isFinite(pct) || pct < PRECISION_PCT.min || pct > PRECISION_PCT.max) {
    throw invalidOption(flag, `must be a percentage from ${PRECISION_PCT.min}% to ${PRECISION_PCT.max}% such as 5%, got ${JSON.stringify(value)}`)
  }
  return pct / 100
}

/**
 * `2` → each growing step has twice the clients of the last passing one.
 * @param {unknown} value
 * @param {string} flag
 */
export function parseGrowth (value, flag) {
  const text = String(value).trim()
  const factor = /^\d+(?:\.\d+)?$/.test(text) ? Number(text) : NaN
  if (!(factor >= 1.1 && factor <= 10)) {
    const why = 'each growing step has that many times the clients of the last passing one'
    throw invalidOption(flag, `must be a factor from 1.1 to 10 such as 2 (${why}), got ${JSON.stringify(value)}`)
  }
  return factor
}

/** @param {unknown} v @param {string} flag */
const clientCount = (v, flag) => parseInteger(v, flag, { min: 1, max: MAX_CLIENTS })

export const CAPACITY_OPTIONS = defineOptions([
  {
    name: 'slo',
    group: 'Capacity search',
    type: 'string',
    array: true,
    commands: ['capacity'],
    required: ['capacity'],
    describe: 'The service level each step must meet (repeatable): p99<500ms',
    details: 'The service level every step must meet, in the --assert grammar (repeatable, all must hold): p99<500ms, missing=0, abs.p99<1s, connected>=99%; ' +
      'without rounds also ack.p99<200ms, ack.timeouts<1%, reply.p99<300ms, reply.timeouts=0, custom.NAME.p99<300ms, custom.NAME.count>=1. ' +
      'Delays are the worst round of a step (without rounds: its worst window); missing, connected and the other counts count over the step. ' +
      'Without a connected SLO, every client of a step must connect'
  },
  {
    name: 'start',
    group: 'Capacity search',
    type: 'string',
    default: 1000,
    commands: ['capacity'],
    describe: 'Clients of the first step, over all simulators',
    details: 'Clients of the first step (over all simulators; --vary emit-rate: messages a second). If it fails the SLO, the search stops (exit 3): start lower',
    parse: clientCount
  },
  {
    name: 'max',
    group: 'Capacity search',
    type: 'string',
    default: 100000,
    commands: ['capacity'],
    describe: 'Most clients the search tries',
    details: 'Most clients the search tries (--vary emit-rate: messages a second); every step passing up to here gives "at least --max"',
    parse: clientCount
  },
  {
    name: 'precision',
    group: 'Capacity search',
    type: 'string',
    default: '5%',
    commands: ['capacity'],
    describe: 'Narrow until the answer is within this share',
    details: 'Stop narrowing when the first failing step is within this share above the last passing one (0.1% to 50%); the answer is the last passing step',
    parse: parsePrecision
  },
  {
    name: 'growth',
    group: 'Capacity search',
    type: 'string',
    default: 2,
    commands: ['capacity'],
    describe: 'Growth of the clients from step to step',
    details: 'Until a step fails, each step has this many times the clients of the last (1.1 to 10; capped at --max)',
    parse: parseGrowth
  },
  {
    name: 'vary',
    group: 'Capacity search',
    type: 'string',
    default: 'clients',
    commands: ['capacity'],
    describe: 'What the search varies: clients, or emit-rate (the messages a second --clients clients emit)',
    details: 'What the search varies: clients (how many clients the server holds), or emit-rate (how many messages a second the server holds from --clients clients ' +
      'emitting --emit: --start, --max and the answer are then messages a second over the whole swarm, spread over its --emitters)',
    parse: (v, flag) => {
      const name = String(v).trim()
      if (!VARY.includes(name)) throw invalidOption(flag, `must be one of ${VARY.join(', ')}, got ${JSON.stringify(v)}`)
      return name
    }
  },
  {
    name: 'step-duration',
    group: 'Capacity search',
    to: 'stepDurationMs',
    type: 'string',
    default: '20s',
    commands: ['capacity'],
    describe: 'Without rounds: how long each step holds its load',
    details: 'Without rounds (--rounds none, or --target without --token): how long each step holds its load once its clients are connected; ' +
      'it is judged on the --window windows wholly inside that hold (at least two windows long)',
    parse: (v, flag) => parseDurationMs(v, flag, { max: 3600000 })
  },
  {
    name: 'rounds',
    group: 'Traffic',
    alias: 'r',
    type: 'string',
    default: CAPACITY_ROUNDS,
    commands: ['capacity'],
    describe: 'Broadcast rounds of every step, COUNTxINTERVAL_MS,…, or none: the app\'s own traffic',
    details: 'Broadcast rounds of every step, COUNTxINTERVAL_MS,… (its own message ids each step), or none: no broadcaster, each step holds --step-duration ' +
      'and is judged on its windows of the app\'s own traffic (--emit, --scenario, the app\'s feed). With --target and no --token, none is the default',
    parse: (v, flag) => (String(v).trim() === 'none' ? [] : parseRounds(v, flag))
  }
])
