/**
 * The simulator's options (`ioswarm simulate`, `node client.js`). Those marked passOn are
 * also options of `run` and `fleet up`, which hand them to every simulator they start.
 */
import { invalidOption } from '../../errors.js'
import { parseBytes, parseDurationMs, parseInteger, parseTransportMix } from '../../values/parsers.js'
import { DEFAULT_EVENT, DEFAULT_PATH } from '../../protocol.js'
import { MAX_NODE_NAMES, OTHER_NODE, parseNodeFrom } from '../../input/node-from.js'
import { parsePhases } from '../../input/phase-profile.js'
import { parseSourceAddresses } from '../../input/source-addresses.js'
import { parseCaFiles } from '../../input/tls-trust.js'
import { parseRampGuard } from '../../input/ramp-guard.js'
import { defineOptions } from '../define.js'
import { MAX_CLIENTS, MAX_PAYLOAD_LIMIT_BYTES, MIN_PAYLOAD_LIMIT_BYTES, PARSER_NAMES, RECORDER_LIMITS, WS_CLIENT_NAMES } from '../../values/option-values.js'

/** Client engines: the real socket.io-client, and the protocol spoken directly. */
export const ENGINE_NAMES = Object.freeze(['sio', 'lean'])
/** The lean engine's polling HTTP clients: its own HTTP/1.1 client (the default for http://) or undici (always for https://). */
export const HTTP_CLIENT_NAMES = Object.freeze(/** @type {('builtin' | 'undici')[]} */ (['builtin', 'undici']))
/** Clients of one simulator when --clients is not given. */
const DEFAULT_CLIENTS = 100
/** Most simulator worker processes (the machine's cores, not this cap, are the real bound). */
const MAX_WORKERS = 64

/**
 * @param {unknown} value
 * @param {string} flag
 */
function positiveDurationMs (value, flag) {
  const ms = parseDurationMs(value, flag)
  if (ms <= 0) throw invalidOption(flag, `must be more than 0, got ${JSON.stringify(value)}`)
  return ms
}

/** @param {unknown} value @param {string} flag */
const optionalDurationMs = (value, flag) => (value === undefined || value === null ? null : parseDurationMs(value, flag))

export const SIMULATE_OPTIONS = defineOptions([
  {
    name: 'clients',
    group: 'Clients and ramp',
    alias: 'c',
    type: 'string',
    default: DEFAULT_CLIENTS,
    commands: ['simulate'],
    passOn: true,
    defaultText: {
      simulate: String(DEFAULT_CLIENTS),
      run: `${DEFAULT_CLIENTS} per simulator`,
      'fleet up': `${DEFAULT_CLIENTS} per simulator`,
      capacity: String(DEFAULT_CLIENTS)
    },
    describe: {
      simulate: 'Clients in all, split over --workers',
      run: 'Clients in all, over --simulators (for now refused with several)',
      'fleet up': 'Clients in all, over the hosts\' simulators (for now refused with several)',
      capacity: 'With --vary emit-rate: the clients of every step'
    },
    details: {
      capacity: 'With --vary emit-rate: the clients held at every step, over all simulators (refused with --vary clients: the search sets them)',
      run: 'Clients in all, split over --simulators as simulate splits them over --workers. Until the next minor version a bare --clients with more than one ' +
        'simulator is refused, as run read it per simulator before: say --total-clients (in all) or --clients-per-simulator. Without any, each simulator runs 100',
      'fleet up': 'Clients in all, split evenly over the hosts × --simulators. Until the next minor version a bare --clients with more than one simulator ' +
        'is refused, as fleet up read it per simulator before: say --total-clients (in all) or --clients-per-simulator. Without any, each simulator runs 100'
    },
    parse: (v, flag) => parseInteger(v, flag, { min: 1, max: MAX_CLIENTS })
  },
  {
    name: 'max-clients',
    group: 'Clients and ramp',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    // capacity makes room for its own --max.
    notOn: ['capacity'],
    defaultText: '--clients: no room to grow',
    describe: {
      simulate: 'Room for this many clients, made at the start: the most a steered swarm (the dashboard, its API) may grow to',
      run: 'Room for this many clients over all simulators, made at the start: the most a steered run may grow to',
      'fleet up': 'Room for this many clients over all the hosts\' simulators, made at the start: the most a steered run may grow to'
    },
    parse: (v, flag) => (v === undefined || v === null ? undefined : parseInteger(v, flag, { min: 1, max: MAX_CLIENTS }))
  },
  {
    name: 'url',
    group: 'Target',
    alias: 'u',
    type: 'string',
    array: true,
    default: ['http://localhost:3000'],
    commands: ['simulate', 'fleet up'],
    required: ['fleet up'],
    describe: {
      simulate: 'Server URL(s) or a range of them',
      'fleet up': 'Server under test, as the hosts reach it'
    },
    details: {
      simulate: 'Server URL (a path is taken as the namespace, as socket.io-client does); give it several times, or as an address range such as http://127.0.0.1-127.0.0.8:3000, to spread clients round-robin over destinations (ephemeral ports are per destination)'
    }
  },
  {
    name: 'source-address',
    group: 'Processes and scale',
    to: 'sourceAddresses',
    type: 'string',
    array: true,
    defaultText: 'the kernel picks',
    commands: ['simulate'],
    passOn: true,
    describe: 'Open connections from these local addresses, round-robin: 10.0.0.2,10.0.0.3 or 10.0.0.2-10.0.0.9',
    details: 'Open connections from these local addresses, round-robin, each with source ports the simulator picks itself: a comma list and/or IPv4 ranges (10.0.0.2,10.0.0.3 or 10.0.0.2-10.0.0.9, at most 1,024). Ephemeral ports are per (source address, destination), so N addresses carry N times the clients to one server address. Every address must be on an interface of the simulator\'s host (ip addr add 10.0.0.3/24 dev eth0). By default the kernel picks (one source address)',
    parse: (v, flag) => parseSourceAddresses(v, flag)
  },
  {
    name: 'ca',
    group: 'Target',
    type: 'string',
    array: true,
    commands: ['simulate', 'record'],
    passOn: true,
    describe: 'PEM file of CA certificates to trust besides Node\'s (repeatable)',
    details: 'A PEM file of certificates to trust for https:// and wss:// (repeatable), besides Node\'s own roots: a staging server\'s self-signed certificate or its private CA. Every engine, transport and the handshake probe use it',
    parse: (v, flag) => parseCaFiles(v, flag)
  },
  {
    name: 'insecure',
    group: 'Target',
    type: 'boolean',
    default: false,
    commands: ['simulate', 'record'],
    passOn: true,
    describe: 'Accept any TLS certificate (a trusted network only)',
    details: 'Do not verify the server\'s TLS certificate (any certificate is accepted: a test against a trusted network only). Printed in the summary and recorded in the result',
    parse: Boolean
  },
  {
    name: 'transport',
    group: 'Clients and ramp',
    alias: 't',
    type: 'string',
    default: 'websocket',
    commands: ['simulate'],
    passOn: true,
    describe: 'websocket, polling, upgrade (poll, then upgrade), or a mix: websocket:70,polling:30',
    details: 'websocket, polling (never upgrades), upgrade (poll, then upgrade, like browsers), or a mix by weight: websocket:70,polling:30',
    parse: (v, flag) => parseTransportMix(v, flag)
  },
  {
    name: 'engine',
    group: 'Clients and ramp',
    type: 'string',
    default: 'sio',
    choices: ENGINE_NAMES,
    commands: ['simulate'],
    passOn: true,
    describe: 'sio = the real socket.io-client (fidelity); lean = the protocol spoken directly (scale)',
    details: 'Client implementation: sio = the real socket.io-client (fidelity), lean = Engine.IO/Socket.IO spoken directly over ws and keep-alive HTTP (scale: less memory and CPU per client)'
  },
  {
    name: 'ws-client',
    group: 'Advanced',
    type: 'string',
    choices: WS_CLIENT_NAMES,
    commands: ['simulate'],
    passOn: true,
    describe: 'WebSocket client: builtin (lean default, leaner) or ws (the ws library; --protocol websocket default)',
    details: 'WebSocket client of --engine lean and --protocol websocket, over ws:// and wss://. builtin (the lean engine\'s default) = ioswarm\'s own RFC 6455 client over net and tls (no compression: --per-message-deflate stays on ws): leaner and cheaper per frame (bench/results/2026-11-engines.md, 2026-12-ws-client.md). ws (--protocol websocket\'s default) = the ws library. Over wss:// it verifies certificates as ws does (--ca, --insecure; the same error codes), sends SNI as ws does (the host name, none for an address), and its clients share one TLS context and resume the latest TLS session the server issued (ws does a full handshake per connection)'
  },
  {
    name: 'http-client',
    group: 'Advanced',
    type: 'string',
    choices: HTTP_CLIENT_NAMES,
    commands: ['simulate'],
    passOn: true,
    describe: 'HTTP client of --engine lean\'s long-polling: builtin (http://), or undici (always for https://)',
    details: 'HTTP client of --engine lean\'s long-polling. builtin (default for http://) = ioswarm\'s own HTTP/1.1 client over net: a keep-alive connection per client for its polls, posts over a shared pool of keep-alive connections per source address (128); cheaper per polled frame (bench/results/2026-11-engines.md). undici = the undici library (always for https://: TLS), polls on a connection per client, posts over a shared pool of the same size'
  },
  {
    name: 'path',
    group: 'Target',
    type: 'string',
    default: DEFAULT_PATH,
    commands: ['simulate', 'serve'],
    passOn: true,
    describe: 'Engine.IO path on the server',
    parse: (v, flag) => {
      const path = String(v)
      if (!path.startsWith('/')) throw invalidOption(flag, `must start with /, got ${JSON.stringify(path)}`)
      return path.endsWith('/') ? path : `${path}/`
    }
  },
  {
    name: 'parser',
    group: 'Target',
    type: 'string',
    default: 'json',
    choices: PARSER_NAMES,
    commands: ['simulate', 'serve'],
    passOn: true,
    describe: { simulate: 'Packet encoding, as the server\'s', serve: 'Socket.IO packet encoding (msgpack = socket.io-msgpack-parser; clients need the same)' },
    details: { simulate: 'Socket.IO packet encoding; must match the server\'s (msgpack = socket.io-msgpack-parser)' }
  },
  {
    name: 'eio',
    group: 'Advanced',
    type: 'string',
    choices: ['3', '4'],
    defaultText: 'detected from the server\'s handshake',
    commands: ['simulate'],
    passOn: true,
    describe: 'Engine.IO protocol version of the server: 3 = socket.io 2.x, 4 = socket.io 3 and 4',
    details: 'Engine.IO protocol version of the server: 3 = socket.io 2.x (Socket.IO v2 packets, client pings), 4 = socket.io 3 and 4. Both engines speak both',
    parse: (v) => (v === undefined || v === null ? null : /** @type {3 | 4} */ (Number(v)))
  },
  {
    name: 'namespace',
    group: 'Target',
    type: 'string',
    array: true,
    defaultText: 'the URL\'s path',
    commands: ['simulate'],
    passOn: true,
    describe: 'Namespace(s) each client joins',
    details: 'Namespace to join; give it several times (--namespace /chat --namespace /news) and each client joins every one over its one connection, as socket.io-client\'s Manager does: each namespace is counted and measured on its own. By default the URL\'s path, else /'
  },
  {
    name: 'event',
    group: 'What is measured',
    to: 'events',
    type: 'string',
    array: true,
    default: [DEFAULT_EVENT],
    commands: ['simulate'],
    passOn: true,
    describe: { simulate: 'Broadcast event(s) to measure; * = every event', run: 'The event broadcast and measured' },
    details: { run: 'Broadcast event: the runner broadcasts on it and its simulators measure it' },
    parse: (v, flag) => {
      const events = [v].flat().map(String)
      if (events.length === 0 || events.some((e) => e.length === 0)) throw invalidOption(flag, 'must not be empty')
      return events
    }
  },
  {
    name: 'ramp',
    group: 'Clients and ramp',
    to: 'rampMs',
    type: 'string',
    defaultText: 'the server\'s pingInterval',
    commands: ['simulate', 'run', 'capacity', 'fleet up'],
    describe: {
      simulate: 'Spread connects over this window: 0 = all at once, 10s, 500ms',
      capacity: 'Spread the clients each step adds over this window: 0 = all at once, 10s, 500ms'
    },
    details: 'By default the server\'s pingInterval, read from its handshake.',
    parse: optionalDurationMs
  },
  {
    name: 'duration',
    group: 'Clients and ramp',
    to: 'durationMs',
    type: 'string',
    defaultText: 'until Ctrl-C / SIGTERM',
    commands: ['simulate', 'fleet up', 'run'],
    describe: {
      simulate: 'Stop this long after the start, the ramp included: 60, 90s, 5m (a bare number is seconds)',
      'fleet up': 'Stop this long after the start, the ramp included: 60, 90s, 5m (a bare number is seconds)',
      run: 'Without rounds: the whole run, the ramp included (for now refused unless --ramp 0)'
    },
    details: {
      run: 'Without rounds (--rounds none): stop this long after the simulators start, the ramp included (5m), as simulate does; results come in --window windows. ' +
        'Refused with --rounds. Until the next minor version a bare --duration is refused unless --ramp 0, as it meant the hold after the ramp before: ' +
        'say --total-duration (the whole run) or --hold (after the ramp)'
    },
    parse: (v, flag) => (v === undefined || v === null ? null : positiveDurationMs(v, flag))
  },
  {
    name: 'window',
    group: 'What is measured',
    to: 'windowMs',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    defaultText: 'none; 10s in a run without rounds',
    describe: {
      simulate: 'Results in time windows of this length (10s, 1m), each a row like a round',
      run: 'Without rounds: the length of each result window (default 10s), merged over every simulator',
      capacity: 'Without rounds: the windows a step is judged on (default 5s, at most half of --step-duration)'
    },
    details: {
      simulate: 'Results in time windows of this length (10s, 1m), each a row like a round: clients, deliveries, missing, delays, emits and acks, connects, drops, the simulator\'s health; printed as each closes and in --json',
      run: 'Without rounds: the length of each result window (default 10s): a row like a round, merged over every simulator, printed as it closes, in result.json, windows.csv and the report',
      capacity: 'Without rounds: the length of the windows a step is judged on (default 5s, at most half of --step-duration): the worst of those wholly inside its hold'
    },
    parse: (v, flag) => {
      if (v === undefined || v === null) return null
      const ms = positiveDurationMs(v, flag)
      if (ms < 1000) throw invalidOption(flag, `must be at least 1s (the swarm samples itself once a second), got ${JSON.stringify(String(v))}`)
      return ms
    }
  },
  {
    name: 'phases',
    group: 'Clients and ramp',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    // capacity sets the clients and the ramp of its simulators itself.
    notOn: ['capacity'],
    defaultText: 'none',
    describe: {
      run: 'A load profile without rounds: \'ramp 60s to 2000, hold 3m at 2/s, ramp 20s to 0\'',
      simulate: 'A load profile: \'ramp 60s to 2000, hold 3m, ramp 20s to 0\' (instead of --clients, --ramp, --duration)'
    },
    details: {
      run: 'A load profile for a run without rounds: \'ramp 60s to 2000, hold 3m at 2/s, ramp 20s to 0\' (as simulate --phases). Each target is the whole run\'s clients, ' +
        'split over --simulators as their clients are; the run lasts the profile, in --window windows, each saying its phase, and the report shades the phases. ' +
        'Implies --rounds none; refused with broadcast --rounds (they need a fixed swarm), with --clients, --ramp, --duration, --distributions and --expect-simulators. Without it: --clients over --ramp, then held until --duration',
      simulate: 'A load profile, as k6 stages or Artillery phases: \'ramp 60s to 2000, hold 3m, ramp 30s to 5000, hold 3m, ramp 20s to 0\'. ' +
      'ramp DURATION to CLIENTS opens (or gracefully closes: a Socket.IO disconnect, counted apart from drops) clients spread over the step; ' +
      'hold DURATION stays; either may end in "at RATE", --emit\'s rate in that step (as --emit-rate: hold 3m at 2/s; steps without one use --emit-rate). The swarm starts with 0 clients; its size is the largest ramp target and the run ends after the last step, so ' +
      '--clients, --ramp and --duration are refused with it. With --workers, or --part K/N (fleet up\'s simulators, the Kubernetes Job\'s pods), each ramp\'s target is the whole swarm\'s, split over them. Without it: --clients over --ramp, then held until --duration'
    },
    parse: parsePhases
  },
  {
    name: 'wait-for-server',
    group: 'Target',
    to: 'waitForServerMs',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    defaultText: 'one look',
    describe: 'Wait up to this long for the server: 2m',
    details: 'Before the swarm, keep looking for the server\'s handshake (every second) for up to this long, for a server still starting: 30s, 2m. By default one look: an address with no Engine.IO at the path (HTTP 404) stops before the swarm (exit 2)',
    parse: (v, flag) => (v === undefined || v === null ? null : positiveDurationMs(v, flag))
  },
  {
    name: 'keep-alive',
    group: 'Advanced',
    type: 'boolean',
    default: true,
    commands: ['simulate'],
    passOn: true,
    describe: 'HTTP keep-alive for polling requests (--no-keep-alive: a new TCP connection per request)',
    details: 'HTTP keep-alive for polling requests (--no-keep-alive: a new TCP connection per request, as socket.io-client does without an agent)',
    parse: Boolean
  },
  {
    name: 'reconnect',
    group: 'Clients and ramp',
    type: 'boolean',
    default: true,
    commands: ['simulate'],
    passOn: true,
    describe: 'Reconnect (socket.io-client\'s backoff)',
    details: 'Reconnect with socket.io-client\'s backoff after a disconnect',
    parse: Boolean
  },
  {
    name: 'reconnect-on-server-disconnect',
    group: 'Advanced',
    type: 'boolean',
    default: false,
    commands: ['simulate'],
    passOn: true,
    describe: 'Connect again after the server disconnects a client on purpose ("io server disconnect")',
    details: 'Connect again after the server disconnects a client on purpose ("io server disconnect"), after the usual backoff, as many apps do by calling socket.connect(); socket.io-client itself stays away (the default)',
    parse: Boolean
  },
  {
    name: 'reconnect-spread',
    group: 'Advanced',
    to: 'reconnectSpreadMs',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    defaultText: 'socket.io-client\'s default backoff: 1s ±50 %, doubling, up to 5s',
    describe: 'Spread reconnects after a drop over about this window (10s), not in waves',
    details: 'Spread reconnects after a drop over about this window (10s), as an app that sets socket.io-client\'s reconnectionDelay to half of it and randomizationFactor to 1: the first attempt waits 0 … the window, so a storm comes back as a spread, not as waves; later attempts double, up to the window (at least 5s)',
    parse: (v, flag) => {
      const ms = optionalDurationMs(v, flag)
      if (ms !== null && ms < 100) throw invalidOption(flag, `must be at least 100ms, got ${JSON.stringify(v)}`)
      return ms
    }
  },
  {
    name: 'ramp-guard',
    group: 'Clients and ramp',
    type: 'string',
    optionalValue: true,
    commands: ['simulate'],
    passOn: true,
    notOn: ['capacity', 'fleet up'],
    describe: 'Hold the ramp while the loop lags or connects fail or slow; cap retries',
    details: 'Degrade instead of collapsing: each simulator process stops opening new clients while its event-loop delay (p99 of the last second) ' +
      'is above `loop`, more than `failures` of the connect attempts answered in the last 3 seconds failed (timed out, refused, errored), or ' +
      'the connects of the last 3 seconds took longer than `connect` (their p99, attempts still waiting past it counted too: a server falling ' +
      'behind answers slowly long before it times out; `connect=off` does not watch it), and opens the rest on the same schedule once all are back under, so a held ramp ends later, it never bursts. Held for failures with nothing ' +
      'answered since, it waits while attempts are out, else at most 10 s (clients refused for good never try again). Reconnect attempts (lean, websocket and sse engines; socket.io-client paces its own) ' +
      'are capped at `reconnects` a second per process (a tenth of it while the ramp is held: a retry is load too), those over it deferred. The progress line says why the ramp is held (under run and --workers, each ' +
      'simulator process says so at most every 10 s); the result ' +
      'records the holds, the time held and the deferred reconnects (`rampGuard`, summed over processes). Alone: loop=200ms,failures=5%,connect=3s,reconnects=50/s; ' +
      'set any of them: --ramp-guard loop=100ms,failures=10%',
    to: 'rampGuard',
    parse: (v, flag) => parseRampGuard(v, flag)
  },
  {
    name: 'session-lifetime',
    group: 'Clients and ramp',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    notOn: ['capacity'],
    defaultText: 'the whole run',
    describe: 'Churn: sessions last 5m, or 2m..8m',
    details: 'Churn: each client closes after this long and a new session opens in its place at once: 5m, or a range 2m..8m (drawn uniformly per session). The summary states the rate of connects and disconnects. By default sessions last the whole run',
    to: 'sessionLifetime'
  },
  {
    name: 'max-payload',
    group: 'Advanced',
    to: 'maxPayloadBytes',
    type: 'string',
    default: '1MB',
    commands: ['simulate'],
    passOn: true,
    describe: {
      simulate: 'Largest WebSocket message or polling response a client accepts: 512KB, 10MB, 1MiB',
      run: 'The simulators\' payload limit (simulate --max-payload): 1MB, 10MB, 1MiB'
    },
    details: {
      simulate: 'Largest WebSocket message or polling response one client accepts: 1000000, 512KB, 10MB, 1MiB (KB/MB = 1000-based, KiB/MiB = 1024-based; up to 256MiB). A bigger one closes the client (it reconnects after the usual backoff), counted as "payload over --max-payload". Default: socket.io\'s own maxHttpBufferSize (1e6); socket.io-client\'s 100 MiB would let 10,000 clients hold 1 TB. Raise it when your messages (several, in one polling response) are bigger',
      run: 'The simulators\' payload limit (simulate --max-payload): 1MB, 10MB, 1MiB (default: 1MB, or two messages of --size when that is more); simulators joining through Redis set their own'
    },
    parse: (v, flag) => parseBytes(v, flag, { min: MIN_PAYLOAD_LIMIT_BYTES, max: MAX_PAYLOAD_LIMIT_BYTES })
  },
  {
    name: 'message-timeout',
    group: 'What is measured',
    to: 'messageTimeoutMs',
    type: 'string',
    default: '10s',
    commands: ['simulate', 'broadcast'],
    passOn: true,
    describe: {
      simulate: 'Close a message this long after first receipt',
      run: 'How long a message may take to reach every client',
      broadcast: 'With --run: how long to wait for every simulator\'s reports of a round (plus 5 s)'
    },
    details: { simulate: 'Close a message this long after its first receipt (or when every expected client has it); later copies count as late' },
    parse: positiveDurationMs
  },
  {
    name: 'max-open-messages',
    group: 'Advanced',
    type: 'string',
    default: RECORDER_LIMITS.maxOpen,
    commands: ['simulate'],
    passOn: true,
    describe: 'Most messages recorded at once; copies of further new ones count as untracked',
    details: 'Most messages recorded at once (each holds ≈ 150 KB of histograms while open); copies of further new messages are counted as untracked, so a flooding server cannot exhaust memory',
    parse: (v, flag) => parseInteger(v, flag, { min: 1, max: 100_000 })
  },
  {
    name: 'keep-messages',
    group: 'Advanced',
    type: 'string',
    default: RECORDER_LIMITS.keepClosed,
    commands: ['simulate'],
    passOn: true,
    describe: 'Closed messages kept whole in a simulator\'s result; older ones fold into per-round rollups',
    details: 'Closed messages kept whole in a simulator\'s result; older ones are folded into per-round rollups (counts summed, histograms merged) so memory stays flat on long runs. A collector (--redis, ioswarm run) gets every message whole regardless',
    parse: (v, flag) => parseInteger(v, flag, { min: 0, max: 10_000_000 })
  },
  {
    name: 'node-from',
    group: 'What is measured',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    describe: 'Node per client, from cookie:NAME, header:NAME or event:NAME',
    details: 'Which node of a deployment behind a load balancer served each client, read from cookie:NAME (the balancer\'s sticky cookie in the client\'s jar, e.g. cookie:SERVERID), ' +
      'header:NAME (a response header of the client\'s handshake: the first polling GET\'s answer or the WebSocket upgrade\'s 101, e.g. header:X-Served-By from HAProxy\'s ' +
      '`http-response set-header X-Served-By %s`; both engines, every transport; --engine sio reads every polling answer, the lean engine only the handshake\'s) ' +
      'or event:NAME[.path] (an event the app sends on connect, e.g. event:node or event:hello.server): ' +
      'results per node (clients, connects, drops, clients that moved node after a reconnect, deliveries, delays) and the imbalance (largest ÷ smallest node; --assert nodes.imbalance<1.5). ' +
      `The first ${MAX_NODE_NAMES} names get rows of their own, the rest share one row \`${OTHER_NODE}\``,
    parse: parseNodeFrom
  },
  {
    name: 'id',
    group: 'Processes and scale',
    type: 'string',
    commands: ['simulate', 'serve', 'probe'],
    describe: {
      simulate: 'Simulator id in results (default: <hostname>-<pid>)',
      serve: 'Server id in the collector (default: server-<hostname>; workers add -w<k>, the primary -primary)',
      probe: 'Server id in the run (default: proc-<hostname>-<pid>)'
    }
  },
  {
    name: 'workers',
    group: 'Processes and scale',
    type: 'string',
    default: 1,
    commands: ['simulate', 'fleet up'],
    describe: 'Simulator processes to spread the clients over',
    details: 'Spread the clients over this many simulator processes (file descriptors are limited per process; one process uses one core); results are merged',
    parse: (v, flag) => parseInteger(v, flag, { min: 1, max: MAX_WORKERS })
  }
])
