/**
 * Options of `ioswarm serve` (the reference server) and `ioswarm probe` (a /proc probe of
 * any server process).
 */
import { invalidOption } from '../../errors.js'
import { parseDurationMs, parseInteger, parseNamespaces } from '../../values/parsers.js'
import { DEFAULT_EVENT, DEFAULT_RELAY_EVENT, JOIN_EVENT, LEAVE_EVENT } from '../../protocol.js'
import { defineOptions } from '../define.js'

/** How a broadcast reaches every worker's clients. */
export const ADAPTER_NAMES = Object.freeze(['memory', 'cluster', 'redis', 'redis-streams'])
/** Most worker processes `serve --cluster` accepts. */
const MAX_SERVER_WORKERS = 64
/** Events socket.io reserves: a broadcast or relay on one of them would confuse every client. */
export const RESERVED_EVENTS = Object.freeze(['connect', 'connect_error', 'disconnect', 'disconnecting', 'newListener', 'removeListener'])

/**
 * An event name a client may emit or the server may broadcast: 1 to 200 characters, not reserved.
 * @param {unknown} value
 * @param {string} flag
 * @param {string[]} [alsoTaken] other events of the server it must not be
 */
export function parseEventName (value, flag, alsoTaken = []) {
  const event = String(value)
  if (event.length === 0 || event.length > 200 || RESERVED_EVENTS.includes(event) || alsoTaken.includes(event)) {
    const taken = [...RESERVED_EVENTS, ...alsoTaken].join(', ')
    throw invalidOption(flag, `must be an event name of 1 to 200 characters, not one of ${taken}, got ${JSON.stringify(event)}`)
  }
  return event
}

export const SERVE_OPTIONS = defineOptions([
  {
    name: 'port',
    group: 'Reference server',
    alias: 'p',
    type: 'string',
    default: 3000,
    commands: ['serve'],
    describe: 'Port to listen on (0 = a free port, printed)',
    parse: (v, flag) => parseInteger(v, flag, { min: 0, max: 65535 })
  },
  {
    name: 'host',
    group: { serve: 'Reference server', record: 'Traffic' },
    type: 'string',
    commands: ['serve', 'record'],
    describe: { serve: 'Address to bind (default: all interfaces)', record: 'Address the recording proxy binds (default: 127.0.0.1, this machine only)' }
  },
  {
    name: 'event',
    group: 'Traffic',
    type: 'string',
    default: DEFAULT_EVENT,
    commands: ['serve', 'broadcast'],
    describe: { serve: 'Event name broadcasts are emitted on', broadcast: 'Event to broadcast on' }
  },
  {
    name: 'cluster',
    group: 'Reference server',
    type: 'string',
    default: 0,
    commands: ['serve'],
    describe: 'Worker processes on the one port, with sticky sessions for polling (0 = a single process)',
    parse: (v, flag) => parseInteger(v, flag, { min: 0, max: MAX_SERVER_WORKERS })
  },
  {
    name: 'adapter',
    group: 'Reference server',
    type: 'string',
    choices: ADAPTER_NAMES,
    defaultText: 'cluster with --cluster 2+, else memory',
    commands: ['serve'],
    describe: 'How a broadcast reaches every worker\'s clients; redis ones need --redis'
  },
  {
    name: 'shutdown',
    group: 'Reference server',
    type: 'string',
    default: 'close',
    choices: ['close', 'disconnect'],
    commands: ['serve'],
    describe: 'On SIGTERM/SIGINT: close every connection (close), or disconnect the sockets first (disconnect)',
    details: 'On SIGTERM/SIGINT: close = close every connection as a stock socket.io server\'s io.close() does (clients reconnect, to the next instance in a rolling restart); disconnect = io.disconnectSockets(true) first (clients get "io server disconnect" and, by socket.io-client\'s rule, stay away)'
  },
  {
    name: 'per-message-deflate',
    group: 'Reference server',
    type: 'boolean',
    default: false,
    commands: ['serve'],
    describe: 'Compress WebSocket frames (permessage-deflate)',
    parse: Boolean
  },
  {
    name: 'ping-timeout',
    group: 'Reference server',
    type: 'string',
    default: '20s',
    commands: ['serve'],
    describe: 'Engine.IO pingTimeout',
    parse: (v, flag) => parseDurationMs(v, flag)
  },
  {
    name: 'broadcast-rate',
    group: 'Reference server',
    type: 'string',
    default: '100/s',
    commands: ['serve'],
    describe: 'Broadcasts accepted per second, per worker: 100/s, 600/m, 0 = no limit (over it: HTTP 429)',
    details: 'Broadcasts accepted per second (POST /broadcast and admin emits together; per worker): 100/s, 600/m, 0 = no limit. Over it: HTTP 429 with Retry-After'
  },
  {
    name: 'max-http-buffer-size',
    group: 'Reference server',
    type: 'string',
    default: '1MB',
    commands: ['serve'],
    describe: 'Largest message a client may send: 1000000, 512KB, 1MB, 1MiB (KB/MB = 1000-based, KiB/MiB = 1024-based)'
  },
  {
    name: 'auth-token',
    group: 'Reference server',
    type: 'string',
    secret: true,
    commands: ['serve', 'run', 'capacity'],
    describe: {
      serve: 'Refuse a client\'s connection to an app namespace unless its handshake carries this token',
      run: 'The reference server refuses clients without this token; the simulators bring it (as serve --auth-token)',
      capacity: 'The reference server refuses clients without this token; the simulators bring it (as run --auth-token)'
    },
    details: {
      serve: 'Refuse a client\'s connection to an app namespace unless its handshake carries this token: auth {"token": "…"}, the query parameter token=…, or the header "Authorization: Bearer …" (constant-time check; or IOSWARM_AUTH_TOKEN). Refused clients get CONNECT_ERROR "unauthorized", counted in GET /stats',
      run: 'The reference server this run starts refuses clients without this token, as serve --auth-token (or IOSWARM_AUTH_TOKEN; handed to the server over IPC, never on a command line, and redacted in result.json). The run\'s simulators bring it by environment as auth {"token": …} unless given an identity of their own (--auth, --query, --header, --scenario; {{env.IOSWARM_AUTH_TOKEN}} reads it)',
      capacity: 'The reference server this starts refuses clients without this token, as run --auth-token (the simulators bring it from their environment unless given --auth, --query or --header)'
    },
    parse: (v, flag) => {
      if (v === undefined || v === null || v === '') return null
      const token = String(v)
      if (token.length > 1000) throw invalidOption(flag, `must be at most 1000 characters, got ${token.length}`)
      return token
    }
  },
  {
    name: 'namespace',
    group: { serve: 'Reference server', broadcast: 'Target' },
    to: 'namespaces',
    type: 'string',
    array: true,
    commands: ['serve', 'broadcast'],
    describe: {
      serve: 'An app namespace clients connect to and broadcasts go to (default /); repeatable',
      broadcast: 'Namespace to broadcast into; repeatable (default: every namespace of the reference server)'
    },
    details: {
      serve: 'An app namespace clients connect to and broadcasts go to (default /); repeatable (--namespace /chat --namespace /scores). Each has the auth check, rooms and the relay; the connections of each are in GET /stats',
      broadcast: 'Namespace to broadcast into; repeatable, each message goes into each (default: every namespace of the reference server; / with --via redis-emitter)'
    },
    parse: parseNamespaces
  },
  {
    name: 'relay-event',
    group: 'Reference server',
    type: 'string',
    default: DEFAULT_RELAY_EVENT,
    commands: ['serve'],
    describe: 'A client\'s emit of this event is emitted to its room (or the whole namespace) and acked',
    details: 'A client\'s emit of this event with an object { room?, … } is emitted to everyone in that room (the sender too), or without room to the whole namespace, unchanged, and acked { ok: true, recipients }',
    parse: (v, flag) => parseEventName(v, flag, [JOIN_EVENT, LEAVE_EVENT])
  },
  {
    name: 'relay-rate',
    group: 'Reference server',
    type: 'string',
    default: '100/s',
    commands: ['serve'],
    describe: 'Relayed emits accepted per second from one client: 100/s, 600/m, 0 = no limit',
    details: 'Relayed emits accepted per second from one client (--relay-event): 100/s, 600/m, 0 = no limit. Over it the emit is acked { ok: false, error, retryAfterMs } and not relayed'
  },
  {
    name: 'pid',
    group: 'Target',
    type: 'string',
    commands: ['probe'],
    required: ['probe'],
    describe: 'Process to sample',
    parse: (v, flag) => parseInteger(v, flag, { min: 1, max: 2 ** 22 })
  },
  {
    name: 'interval',
    group: 'What is measured',
    type: 'string',
    default: '1s',
    commands: ['probe'],
    describe: 'Time between samples',
    parse: (v, flag) => parseDurationMs(v, flag)
  }
])
