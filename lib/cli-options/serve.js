/**
 * Options of `ioswarm serve` (the reference server) and `ioswarm probe` (a /proc probe of
 * any server process).
 */
import { parseDurationMs, parseInteger } from '../options.js'
import { DEFAULT_EVENT } from '../protocol.js'

/** How a broadcast reaches every worker's clients. */
export const ADAPTER_NAMES = Object.freeze(['memory', 'cluster', 'redis', 'redis-streams'])
/** Most worker processes `serve --cluster` accepts. */
export const MAX_SERVER_WORKERS = 64

/** @type {import('./index.js').OptionDef[]} */
export const SERVE_OPTIONS = [
  {
    name: 'port',
    alias: 'p',
    type: 'string',
    default: 3000,
    commands: ['serve'],
    describe: 'Port to listen on (0 = a free port, printed)',
    parse: (v, flag) => parseInteger(v, flag, { min: 0, max: 65535 })
  },
  { name: 'host', type: 'string', commands: ['serve'], describe: 'Address to bind (default: all interfaces)' },
  {
    name: 'event',
    type: 'string',
    default: DEFAULT_EVENT,
    commands: ['serve', 'broadcast'],
    describe: { serve: 'Event name broadcasts are emitted on', broadcast: 'Event to broadcast on' }
  },
  {
    name: 'cluster',
    type: 'string',
    default: 0,
    commands: ['serve'],
    describe: 'Worker processes on the one port, with sticky sessions for polling (0 = a single process)',
    parse: (v, flag) => parseInteger(v, flag, { min: 0, max: MAX_SERVER_WORKERS })
  },
  {
    name: 'adapter',
    type: 'string',
    choices: ADAPTER_NAMES,
    defaultText: 'cluster with --cluster 2+, else memory',
    commands: ['serve'],
    describe: 'How a broadcast reaches every worker\'s clients; redis ones need --redis'
  },
  {
    name: 'shutdown',
    type: 'string',
    default: 'close',
    choices: ['close', 'disconnect'],
    commands: ['serve'],
    describe: 'On SIGTERM/SIGINT: close = close every connection as a stock socket.io server\'s io.close() does (clients reconnect, to the next instance in a rolling restart); disconnect = io.disconnectSockets(true) first (clients get "io server disconnect" and, by socket.io-client\'s rule, stay away)'
  },
  {
    name: 'per-message-deflate',
    type: 'boolean',
    default: false,
    commands: ['serve'],
    describe: 'Compress WebSocket frames (permessage-deflate)',
    parse: Boolean
  },
  {
    name: 'ping-timeout',
    type: 'string',
    default: '20s',
    commands: ['serve'],
    describe: 'Engine.IO pingTimeout',
    parse: (v, flag) => parseDurationMs(v, flag)
  },
  {
    name: 'broadcast-rate',
    type: 'string',
    default: '100/s',
    commands: ['serve'],
    describe: 'Broadcasts accepted per second (POST /broadcast and admin emits together; per worker): 100/s, 600/m, 0 = no limit. Over it: HTTP 429 with Retry-After'
  },
  {
    name: 'max-http-buffer-size',
    type: 'string',
    default: '1MB',
    commands: ['serve'],
    describe: 'Largest message a client may send: 1000000, 512KB, 1MB, 1MiB (KB/MB = 1000-based, KiB/MiB = 1024-based)'
  },
  { name: 'pid', type: 'string', commands: ['probe'], required: ['probe'], describe: 'Process to sample', parse: (v, flag) => parseInteger(v, flag, { min: 1, max: 2 ** 22 }) },
  { name: 'interval', type: 'string', default: '1s', commands: ['probe'], describe: 'Time between samples', parse: (v, flag) => parseDurationMs(v, flag) }
]
