/**
 * What each simulated client is and does beyond listening: its identity in the handshake
 * (auth, query, headers, from templates and a feeder), its rooms, and where a user's own
 * message shape keeps its id, send time and room. Simulator options (passOn: `run` and
 * `fleet up` hand them to every simulator). Templates are checked by the simulator's
 * normaliser, which knows the feeder's fields (simulator/sessions/identity.js).
 */
import { invalidOption } from '../../errors.js'
import { parseFieldPath } from '../../input/fields.js'
import { parseDurationMs, parseInteger } from '../../values/parsers.js'
import { defineOptions } from '../define.js'
import { parseCookies, parseHeaders, parseQueryTemplate, parseRate } from '../../values/option-values.js'

/** Most rooms `--rooms` spreads clients over. */
const MAX_ROOMS = 1_000_000

/** @param {unknown} v */
const optionalText = (v) => (v === undefined || v === null || v === '' ? null : String(v))

/**
 * `--emitters 10%` (a share of the clients) or `25` (a count).
 * @param {unknown} value
 * @param {string} flag
 * @returns {{ share: number } | { count: number }}
 */
export function parseEmitters (value, flag) {
  const text = String(value).trim()
  const pct = /^(\d+(?:\.\d+)?)%$/.exec(text)
  if (pct) {
    const share = Number(pct[1]) / 100
    if (!(share > 0 && share <= 1)) {
      throw invalidOption(flag, `must be a share from 0% (exclusive) to 100%, or a count of clients, got ${JSON.stringify(value)}`)
    }
    return { share }
  }
  if (/^\d+$/.test(text) && Number(text) >= 1) return { count: Number(text) }
  throw invalidOption(flag, `must be a share such as 10% or a count of clients such as 25, got ${JSON.stringify(value)}`)
}

export const SCENARIO_OPTIONS = defineOptions([
  {
    name: 'auth',
    group: 'Identity and sessions',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    describe: 'Handshake auth payload of each client, a JSON template: \'{"token":"{{row.token}}","user":"u{{i}}"}\'',
    details: 'Handshake auth payload of each client (Socket.IO v4+ CONNECT packet), a JSON object template: \'{"token":"{{row.token}}","user":"u{{i}}"}\'. Placeholders: {{i}} (the client\'s index in the whole run), {{sim}} (simulator id), {{room}}, {{rand}} (new at each attempt), {{row.FIELD}} (--feeder), {{env.NAME}} (the simulator\'s environment: keeps a secret off the command line)',
    parse: optionalText
  },
  {
    name: 'query',
    group: 'Identity and sessions',
    to: 'queryTemplate',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    describe: 'Handshake query parameters of each client, templates: \'token={{row.token}}&user=u{{i}}\'',
    details: 'Handshake query parameters of each client, values are templates: \'token={{row.token}}&user=u{{i}}\' (added to the URL\'s own query string)',
    parse: (v, flag) => { parseQueryTemplate(v, flag); return optionalText(v) }
  },
  {
    name: 'header',
    group: 'Identity and sessions',
    to: 'headers',
    type: 'string',
    array: true,
    commands: ['simulate'],
    passOn: true,
    describe: 'A header on every request and the upgrade, a template (repeatable): \'Authorization: Bearer {{row.token}}\'',
    details: 'A header on every polling request and on the WebSocket upgrade, value a template (repeatable): --header \'Authorization: Bearer {{row.token}}\' --header \'Cookie: sid={{row.sid}}\'',
    parse: (v, flag) => parseHeaders(v, flag).map(([name, value]) => `${name}: ${value}`)
  },
  {
    name: 'cookie',
    group: 'Identity and sessions',
    to: 'cookies',
    type: 'string',
    array: true,
    commands: ['simulate'],
    passOn: true,
    describe: 'A cookie each client starts with, a template (repeatable): \'session={{row.sid}}\'',
    details: 'A cookie each client starts with, value a template (repeatable): --cookie \'session={{row.sid}}\'. Besides these, every client keeps the cookies responses set (a balancer\'s SERVERID, a login\'s session) and sends them on each later request and on its WebSocket upgrade, as a browser does (path, expiry, Secure only over https)',
    parse: (v, flag) => parseCookies(v, flag).map(([name, value]) => `${name}=${value}`)
  },
  {
    name: 'feeder',
    group: 'Identity and sessions',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    describe: 'Per-client data for {{row.FIELD}}: a CSV file with a header row, or JSON lines',
    details: 'Per-client data for {{row.FIELD}}: a CSV file with a header row, or JSON lines; client i (index in the whole run) gets row i mod rows',
    parse: optionalText
  },
  {
    name: 'rooms',
    group: 'Identity and sessions',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    describe: 'Put client i in room room-{i mod R}; a copy to a client outside the room is misdelivered',
    details: 'Put client i in room room-{i mod R} (with --join, it joins it after each connect); messages that carry a room are expected only by its clients, and a copy to anyone else is counted misdelivered',
    parse: (v, flag) => (v === undefined || v === null ? null : parseInteger(v, flag, { min: 1, max: MAX_ROOMS }))
  },
  {
    name: 'room',
    group: 'Identity and sessions',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    describe: 'Each client\'s room as a template instead of --rooms: \'{{row.room}}\', \'team-{{i}}\'',
    parse: optionalText
  },
  {
    name: 'scenario',
    group: 'Traffic',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    describe: 'A module of hooks for what flags cannot say: see examples/',
    details: 'A module of hooks for what flags cannot say, run for every client on either engine: login(http, ctx) (an HTTP login flags cannot say: a CSRF token first; its return is ctx.login and {{login.FIELD}}), identity(i, ctx), onConnect(socket, ctx), onEvent(socket, event, args, ctx), onDisconnect(socket, reason, ctx); socket has emit, emitWithAck, emitAndWait(event, args, replyEvent, match) (a reply that comes as an event: --reply-event), join, leave, every; ctx has the app\'s own figures, ctx.timing(name, ms) and ctx.count(name, n), merged into results, the report, Prometheus and --assert custom.NAME.p99 / custom.NAME.count. See examples/ and docs/real-apps.md',
    parse: optionalText
  },
  {
    name: 'loop',
    group: 'Traffic',
    type: 'boolean',
    default: false,
    commands: ['simulate'],
    passOn: true,
    describe: 'Sets a scenario\'s ctx.loop: a recorded scenario (ioswarm record) repeats its recorded steps until the run ends',
    details: 'A scenario written by `ioswarm record` replays its recorded steps once per namespace session; with `--loop` it starts again after the last step while the client stays connected. Other scenarios read `ctx.loop` as they like.',
    parse: Boolean
  },
  {
    name: 'join',
    group: 'Identity and sessions',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    describe: 'After each connect each client emits this to join its room and waits for the ack: \'join {"room":"{{room}}"}\'',
    details: 'After each connect (and reconnect) each client emits this to join its room, and waits for the ack (up to --ack-timeout): \'join {"room":"{{room}}"}\', or a JSON array, the event name first, then its arguments: \'["join", {"room":"{{room}}"}]\'. A client is in its room from the ack on (or from the emit, when the server does not ack); an ack of {ok:false} or {error} is a failed join. Join time and failures are measured',
    parse: optionalText
  },
  {
    name: 'emit',
    group: 'Traffic',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    describe: 'What emitters send: \'chat {"text":"hi from {{i}}"}\'',
    details: 'What emitting clients (--emitters) send at --emit-rate: \'chat {"room":"{{room}}","text":"hi from {{i}}"}\', or a JSON array for names with spaces and several arguments: \'["new message", "hi from {{i}} #{{seq}}"]\'. An object payload is stamped with an id and sentAt (at --id-field/--sent-at-field) unless the template places {{id}}/{{sentAt}} itself; when the server relays it (a chat), receivers measure it like a broadcast (the event is measured too); the sender never expects its own line (a copy back is an echo). Placeholders: those of --auth, and {{id}} {{sentAt}} {{seq}}',
    parse: optionalText
  },
  {
    name: 'emit-rate',
    group: 'Traffic',
    to: 'emitIntervalMs',
    type: 'string',
    default: '1/10s',
    commands: ['simulate'],
    passOn: true,
    describe: 'Each emitter\'s rate: 5/s, 30/m, 2/500ms',
    details: 'How often each emitting client emits: 1/10s, 5/s, 30/m, 2/500ms (at most 1000/s per client)',
    parse: parseRate
  },
  {
    name: 'emit-timing',
    group: 'Traffic',
    type: 'string',
    default: 'poisson',
    choices: ['poisson', 'fixed'],
    commands: ['simulate'],
    passOn: true,
    describe: 'poisson = exponential gaps with the rate\'s mean; fixed = exactly the rate\'s interval',
    details: 'poisson = exponential gaps with the rate\'s mean (independent users: no synchronized bursts); fixed = exactly the rate\'s interval, each client starting at a random point of it'
  },
  {
    name: 'emitters',
    group: 'Traffic',
    type: 'string',
    default: '100%',
    commands: ['simulate'],
    passOn: true,
    describe: 'Which clients emit: 10% or 25 of the whole swarm',
    details: 'Which clients emit: a share (10%) or a count (25) of the whole swarm\'s clients (every --workers process, every simulator of a run or a capacity search, every --part), spread evenly over their indices; the same clients however the swarm is split',
    parse: parseEmitters
  },
  {
    name: 'emit-ack',
    group: 'Traffic',
    type: 'boolean',
    default: false,
    commands: ['simulate'],
    passOn: true,
    describe: 'Ask for an ack with each emit and time it',
    details: 'Ask for an ack with each emit and time emit → ack (HDR histogram); no ack within --ack-timeout is a timeout',
    parse: Boolean
  },
  {
    name: 'reply-event',
    group: 'Traffic',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    describe: 'The event a server answers an --emit with instead of an ack: emit → reply is timed',
    details: 'The event a server answers with instead of an ack (older apps, python servers that emit(\'state\', …) back): each --emit waits for it on the same client, ' +
      'timed emit → reply (HDR histogram, sent / replied / timed out within --ack-timeout); a --scenario\'s socket.emitAndWait(event, args, replyEvent, match) listens for it too. ' +
      'Not measured as a broadcast unless --event names it',
    parse: optionalText
  },
  {
    name: 'reply-match',
    group: 'Traffic',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    describe: 'A dot path the same in an emit and its --reply-event (id)',
    details: 'With --reply-event: which reply is this emit\'s, a dot path whose value is the same in the reply\'s first argument as in the emit\'s (id: the stamped id). ' +
      'Without it, the next --reply-event on that client is the reply',
    parse: (v, flag) => (v === undefined || v === null || v === '' ? null : parseFieldPath(v, flag))
  },
  {
    name: 'ack-timeout',
    group: 'Traffic',
    to: 'ackTimeoutMs',
    type: 'string',
    default: '10s',
    commands: ['simulate'],
    passOn: true,
    describe: 'How long an emit (--emit-ack) or a join waits for its ack, and an emit for its --reply-event (or a hook\'s emitAndWait)',
    parse: (v, flag) => parseDurationMs(v, flag)
  },
  {
    name: 'id-field',
    group: 'What is measured',
    type: 'string',
    default: 'id',
    commands: ['simulate'],
    passOn: true,
    describe: 'Dot path of a message\'s id: meta.id',
    details: 'Where a message\'s id is, as a dot path into the event\'s first argument: meta.id (messages without one are told apart by a hash of their content)',
    parse: parseFieldPath
  },
  {
    name: 'sent-at-field',
    group: 'What is measured',
    type: 'string',
    default: 'sentAt',
    commands: ['simulate'],
    passOn: true,
    describe: 'Dot path of a message\'s send time',
    details: 'Where a message\'s send time is (dot path), for absolute latency: epoch seconds, ms, µs or ns (told apart by size) or an ISO 8601 string',
    parse: parseFieldPath
  },
  {
    name: 'room-field',
    group: 'What is measured',
    type: 'string',
    default: 'room',
    commands: ['simulate'],
    passOn: true,
    describe: 'Dot path of a message\'s target room',
    details: 'Where a message\'s target room is (dot path); with --rooms/--room, only that room\'s clients expect it',
    parse: parseFieldPath
  },
  {
    name: 'client-offset',
    group: 'Processes and scale',
    type: 'string',
    default: 0,
    commands: ['simulate'],
    describe: 'Index of this simulator\'s first client in the run',
    details: 'Index of this simulator\'s first client in the whole run ({{i}} = offset + the client\'s own index; feeder rows follow it). ioswarm run and simulate --workers set it for each simulator; give it to simulators you start by hand',
    parse: (v, flag) => parseInteger(v, flag, { min: 0, max: Number.MAX_SAFE_INTEGER })
  },
  {
    name: 'part',
    group: 'Processes and scale',
    type: 'string',
    commands: ['simulate'],
    describe: 'K/N: this simulator is part K (from 0) of N equal parts of a swarm of N × --clients clients',
    details: 'K/N: this simulator is part K (from 0) of N equal parts of a swarm of N × --clients clients (fleet up\'s simulators, the Kubernetes Job\'s pods): its clients start at --client-offset + K × --clients, and it emits with the clients --emitters picks of the whole. With --phases the profile is the whole swarm\'s: this part follows its share of each step (the peak split N ways) instead of --clients',
    parse: parsePart
  }
])

/**
 * `--part K/N` → { index: K, count: N }, K from 0.
 * @param {unknown} value
 * @param {string} flag
 * @returns {{ index: number, count: number } | null}
 */
function parsePart (value, flag) {
  if (value === undefined || value === null || value === '') return null
  const match = /^(\d+)\/(\d+)$/.exec(String(value).trim())
  const [index, count] = match ? [Number(match[1]), Number(match[2])] : [NaN, NaN]
  if (!(count >= 1 && index < count)) throw invalidOption(flag, `must be K/N with 0 ≤ K < N (this simulator's part of N, from 0), got ${JSON.stringify(value)}`)
  return { index, count }
}
