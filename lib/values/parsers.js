/**
 * Parsers for option values shared by every command. Each one validates a single flag,
 * and throws an IoswarmError (exit 2) naming the flag and what is allowed.
 */
import { invalidOption } from '../errors.js'
import { MODE_NAMES } from '../transports.js'
import { ADMIN_NAMESPACE } from '../protocol.js'

const UNIT_MS = { ms: 1, s: 1000, m: 60000, h: 3600000 }

/**
 * A whole number within bounds.
 * @param {unknown} value
 * @param {string} flag
 * @param {{ min?: number, max?: number }} [bounds]
 */
export function parseInteger (value, flag, { min = 1, max = Number.MAX_SAFE_INTEGER } = {}) {
  const text = String(value).trim()
  const n = /^-?\d+$/.test(text) ? Number(text) : NaN
  if (!Number.isSafeInteger(n) || n < min || n > max) {
    throw invalidOption(flag, `must be a whole number from ${min} to ${max}, got ${JSON.stringify(value)}`)
  }
  return n
}

/**
 * A duration: a number in `defaultUnit`, or a number with a unit (ms, s, m, h): `500ms`, `10s`, `1.5m`.
 * @param {unknown} value
 * @param {string} flag
 * @param {{ defaultUnit?: 'ms' | 's', max?: number }} [opts]
 * @returns {number} milliseconds
 */
export function parseDurationMs (value, flag, { defaultUnit = 's', max = 7 * 24 * 3600000 } = {}) {
  const match = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h)?$/.exec(String(value).trim())
  const ms = match ? Number(match[1]) * UNIT_MS[/** @type {'ms'} */ (match[2] ?? defaultUnit)] : NaN
  if (!Number.isFinite(ms) || ms > max) {
    const bare = defaultUnit === 's' ? 'seconds' : 'milliseconds'
    throw invalidOption(flag, `must be a duration such as 0, 500ms, 10s or 2m (a bare number is ${bare}), got ${JSON.stringify(value)}`)
  }
  return Math.round(ms)
}

const UNIT_BYTES = { b: 1, kb: 1e3, mb: 1e6, gb: 1e9, kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3 }

/**
 * A size in bytes: a whole number, or a number with a unit: `512KB`, `10MB`, `1.5MiB`
 * (KB/MB/GB count in 1000s as socket.io's maxHttpBufferSize 1e6 does; KiB/MiB/GiB in 1024s).
 * @param {unknown} value
 * @param {string} flag
 * @param {{ min?: number, max?: number }} [bounds]
 * @returns {number} bytes
 */
export function parseBytes (value, flag, { min = 0, max = Number.MAX_SAFE_INTEGER } = {}) {
  const match = /^(\d+(?:\.\d+)?)\s*([kmg]i?b|b)?$/i.exec(String(value).trim())
  const bytes = match ? Math.round(Number(match[1]) * UNIT_BYTES[/** @type {'b'} */ ((match[2] ?? 'b').toLowerCase())]) : NaN
  if (!Number.isSafeInteger(bytes)) {
    throw invalidOption(flag,
      `must be a size such as 1000000, 512KB, 10MB or 1MiB (KB, MB, GB = 1000-based; KiB, MiB, GiB = 1024-based), got ${JSON.stringify(value)}`)
  }
  if (bytes < min || bytes > max) throw invalidOption(flag, `must be from ${min} to ${max} bytes, got ${JSON.stringify(value)} (${bytes} bytes)`)
  return bytes
}

/**
 * An http(s) or ws(s) URL; ws/wss are taken as http/https (socket.io starts from HTTP).
 * @param {unknown} value
 * @param {string} flag
 * @returns {string} the normalised URL, without a trailing slash on an empty path
 */
export function parseHttpUrl (value, flag) {
  let url
  try {
    url = new URL(String(value))
  } catch {
    throw invalidOption(flag, `must be a URL such as http://localhost:3000, got ${JSON.stringify(value)}`)
  }
  const protocols = { 'http:': 'http:', 'https:': 'https:', 'ws:': 'http:', 'wss:': 'https:' }
  const protocol = protocols[/** @type {'http:'} */ (url.protocol)]
  if (!protocol || !url.hostname) {
    throw invalidOption(flag, `must be an http://, https://, ws:// or wss:// URL with a host, got ${JSON.stringify(value)}`)
  }
  url.protocol = protocol
  return url.href.replace(/\/$/, '')
}

/**
 * @typedef {import('../transports.js').ClientMode} Transport
 * @typedef {{ transport: Transport, weight: number }} MixEntry
 */

/**
 * A transport or a weighted mix: `websocket`, `polling`, `upgrade`, `websocket:70,polling:30`.
 * @param {unknown} value
 * @param {string} [flag]
 * @returns {MixEntry[]} weights as given (not normalised), in the order given
 */
export function parseTransportMix (value, flag = '--transport') {
  const allowed = `one of ${MODE_NAMES.join(', ')}, or a mix such as websocket:70,polling:30`
  const parts = String(value).split(',').map((p) => p.trim()).filter(Boolean)
  if (parts.length === 0) throw invalidOption(flag, `must be ${allowed}, got ${JSON.stringify(value)}`)
  /** @type {MixEntry[]} */
  const mix = []
  for (const part of parts) {
    const [name, weightText, extra] = part.split(':')
    if (!(/** @type {string[]} */ (MODE_NAMES)).includes(name) || extra !== undefined) {
      throw invalidOption(flag, `has an unknown transport ${JSON.stringify(name)}: must be ${allowed}`)
    }
    const weight = weightText === undefined ? 1 : Number(weightText)
    if (!/^\d+(\.\d+)?$/.test(weightText ?? '1') || !(weight > 0)) {
      throw invalidOption(flag, `weight of ${name} must be a positive number, got ${JSON.stringify(weightText)}`)
    }
    if (mix.some((m) => m.transport === name)) throw invalidOption(flag, `names ${name} twice`)
    mix.push({ transport: /** @type {Transport} */ (name), weight })
  }
  return mix
}

/**
 * Which transport each of `count` clients uses: smooth weighted round-robin, so every
 * stretch of the ramp carries the mix (not all WebSocket first, then all polling), and
 * the totals are the weights' exact shares rounded by largest remainder.
 * @param {MixEntry[]} mix
 * @param {number} count
 * @returns {Transport[]}
 */
export function assignTransports (mix, count) {
  const total = mix.reduce((sum, m) => sum + m.weight, 0)
  const current = mix.map(() => 0)
  /** @type {Transport[]} */
  const out = new Array(count)
  for (let i = 0; i < count; i++) {
    let best = 0
    for (let k = 0; k < mix.length; k++) {
      current[k] += mix[k].weight
      if (current[k] > current[best]) best = k
    }
    current[best] -= total
    out[i] = mix[best].transport
  }
  return out
}

/**
 * Formats a mix back to its flag form: `websocket:70,polling:30`.
 * @param {MixEntry[]} mix
 */
export function formatTransportMix (mix) {
  return mix.length === 1 ? mix[0].transport : mix.map((m) => `${m.transport}:${m.weight}`).join(',')
}

/**
 * @typedef {{ count: number, intervalMs: number }} Round
 */

/**
 * Broadcast rounds: `10x5000,10x2000,10x1000` = 10 messages 5 s apart, then 10 at 2 s,
 * then 10 at 1 s. The interval is milliseconds unless it has a unit (`10x5s`).
 * @param {unknown} value
 * @param {string} [flag]
 * @returns {Round[]}
 */
export function parseRounds (value, flag = '--rounds') {
  const parts = String(value).split(',').map((p) => p.trim()).filter(Boolean)
  if (parts.length === 0) throw invalidOption(flag, `must be rounds such as 10x5000,10x2000 (count x interval ms), got ${JSON.stringify(value)}`)
  return parts.map((part) => {
    const match = /^(\d+)\s*x\s*(.+)$/i.exec(part)
    if (!match) throw invalidOption(flag, `has ${JSON.stringify(part)}: each round must be COUNTxINTERVAL such as 10x5000 (10 messages, 5000 ms apart)`)
    return {
      count: parseInteger(match[1], `${flag} (count in ${part})`, { min: 1, max: 100000 }),
      intervalMs: parseDurationMs(match[2], `${flag} (interval in ${part})`, { defaultUnit: 'ms', max: 3600000 })
    }
  })
}

/**
 * Formats rounds back to their flag form.
 * @param {Round[]} rounds
 */
export function formatRounds (rounds) {
  return rounds.map((r) => `${r.count}x${r.intervalMs}`).join(',')
}

/**
 * Most namespaces one server serves and one client joins (over its one connection): the
 * client tracker keeps one bit per namespace of each client.
 */
export const MAX_NAMESPACES = 16

/**
 * A namespace, the one check for every command: / and up to 199 characters, none a space or
 * a comma (a comma ends the namespace in a Socket.IO packet); not the reference server's admin
 * namespace.
 * @param {unknown} value
 * @param {string} [flag]
 */
export function parseNamespace (value, flag = '--namespace') {
  const text = String(value)
  if (!/^\/[^\s,]{0,199}$/.test(text)) {
    throw invalidOption(flag, `must be a namespace: / followed by up to 199 characters other than spaces and commas, got ${JSON.stringify(text)}`)
  }
  if (text === ADMIN_NAMESPACE) throw invalidOption(flag, `must not be the admin namespace ${ADMIN_NAMESPACE}`)
  return text
}

/**
 * `--namespace /a --namespace /b` → ['/a', '/b'] (duplicates dropped, each checked); null when
 * not given (or given empty, as an empty IOSWARM_NAMESPACE).
 * @param {unknown} value
 * @param {string} [flag]
 * @returns {string[] | null}
 */
export function parseNamespaces (value, flag = '--namespace') {
  if (value === undefined || value === null) return null
  const names = [...new Set([value].flat().map(String))].filter((name) => name !== '')
  if (names.length === 0) return null
  if (names.length > MAX_NAMESPACES) throw invalidOption(flag, `must be given 1 to ${MAX_NAMESPACES} times, got ${names.length}`)
  return names.map((name) => parseNamespace(name, flag))
}

/**
 * A run id: the Redis key prefix of a run, so a short set of safe characters.
 * @param {unknown} value
 * @param {string} [flag]
 */
export function parseRunId (value, flag = '--run') {
  const runId = String(value)
  if (!/^[A-Za-z0-9._-]{1,100}$/.test(runId)) {
    throw invalidOption(flag, `must be 1 to 100 letters, digits, dots, dashes or underscores, got ${JSON.stringify(runId)}`)
  }
  return runId
}
