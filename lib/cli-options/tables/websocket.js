/**
 * The wire protocol family (`--protocol socketio|websocket`) and the options of plain
 * WebSocket clients: a message sent after opening, subprotocols, and the filter that stands
 * in for Socket.IO's event names (`--match type=score`). Simulator options (passOn: `run`
 * and `fleet up` hand them to every simulator); `--protocol` is also `serve`'s.
 */
import { invalidOption } from '../../errors.js'
import { parseFieldPath } from '../../input/fields.js'
import { defineOptions } from '../define.js'
import { TOKEN } from '../../values/option-values.js'

/** Wire protocol families: Socket.IO (Engine.IO v3/v4), plain WebSocket (RFC 6455) or Server-Sent Events (subscribers only). */
const PROTOCOL_NAMES = Object.freeze(/** @type {('socketio' | 'websocket' | 'sse')[]} */ (['socketio', 'websocket', 'sse']))

/**
 * RFC 6455 subprotocol token (§4.1: an HTTP token).
 * @param {unknown} value
 * @param {string} flag
 * @returns {string[]}
 */
function parseSubprotocols (value, flag) {
  if (value === undefined || value === null) return []
  const list = [value].flat().flatMap((v) => String(v).split(',')).map((v) => v.trim())
  for (const name of list) {
    if (!TOKEN.test(name)) {
      throw invalidOption(flag, `must be a subprotocol name of letters, digits and !#$%&'*+-.^_\`|~ (e.g. graphql-transport-ws), got ${JSON.stringify(name)}`)
    }
  }
  if (new Set(list).size !== list.length) throw invalidOption(flag, `names a subprotocol twice: ${list.join(', ')}`)
  return list
}

/**
 * `--match path=value` (repeatable) → [path, value] pairs.
 * @param {unknown} value
 * @param {string} flag
 * @returns {[string, string][]}
 */
function parseMatches (value, flag) {
  if (value === undefined || value === null) return []
  return [value].flat().map((item) => {
    const text = String(item)
    const eq = text.indexOf('=')
    if (eq <= 0) {
      const example = 'such as type=score or data.channel=trades'
      throw invalidOption(flag, `must be FIELD=VALUE with FIELD a dot path into the message, ${example}, got ${JSON.stringify(text)}`)
    }
    return /** @type {[string, string]} */ ([parseFieldPath(text.slice(0, eq), flag), text.slice(eq + 1)])
  })
}

/** @param {unknown} v */
const optionalText = (v) => (v === undefined || v === null || v === '' ? null : String(v))

export const WEBSOCKET_OPTIONS = defineOptions([
  {
    name: 'protocol',
    group: 'Target',
    type: 'string',
    default: 'socketio',
    choices: PROTOCOL_NAMES,
    commands: ['simulate', 'serve'],
    passOn: true,
    describe: {
      simulate: 'socketio (Socket.IO), websocket (plain WebSocket: --url ws://host/path) or sse (event streams: --url http://host/path)',
      serve: 'socketio = the socket.io reference server; websocket = a plain ws server (one JSON frame per broadcast)',
      run: 'socketio or websocket: the reference server it starts speaks it, and its simulators; sse: with --target and --publish'
    },
    details: {
      simulate: 'Wire protocol family: socketio = Socket.IO servers (Engine.IO v3 and v4, both engines); websocket = plain WebSocket servers (RFC 6455: ws, uWebSockets, Go, Python websockets …), --url ws://host:port/path, messages told apart by --id-field or their content and filtered with --match; sse = Server-Sent Events subscribers (nchan, Mercure, an app\'s own text/event-stream), --url http://host:port/path, each event\'s type (`event:`, default message) measured as --event, its data told apart by --id-field or its content, Last-Event-ID and retry: on reconnect as EventSource',
      serve: 'socketio = the socket.io reference server; websocket = a plain ws server that sends every broadcast to each client as one JSON text frame (same POST /broadcast, token, rate limit and GET /stats)'
    }
  },
  {
    name: 'send-on-open',
    group: 'Traffic',
    type: 'string',
    commands: ['simulate'],
    passOn: true,
    describe: 'WebSocket: a message each client sends once open (a subscribe)',
    details: 'With --protocol websocket: a message each client sends once its WebSocket opens (a subscribe), sent again after each reconnect; a JSON template (sent as JSON text) or plain text: \'{"op":"subscribe","channel":"{{row.channel}}","user":"u{{i}}"}\'. Placeholders: {{i}} {{sim}} {{room}} {{rand}} {{row.FIELD}}, as for --auth',
    parse: optionalText
  },
  {
    name: 'subprotocol',
    group: 'Target',
    to: 'subprotocols',
    type: 'string',
    array: true,
    commands: ['simulate'],
    passOn: true,
    describe: 'A WebSocket subprotocol to offer (repeatable, by preference)',
    details: 'With --protocol websocket: a subprotocol offered in the handshake (Sec-WebSocket-Protocol; repeatable, in order of preference): --subprotocol graphql-transport-ws. A server that picks none of them, or another, fails the handshake',
    parse: parseSubprotocols
  },
  {
    name: 'match',
    group: 'What is measured',
    type: 'string',
    array: true,
    commands: ['simulate'],
    passOn: true,
    describe: 'WebSocket: measure only messages that match: type=score',
    details: 'With --protocol websocket, what --event is for Socket.IO: measure only JSON messages whose field (a dot path) has this value: --match type=score. Repeatable: values of the same field are alternatives (type=score --match type=goal), different fields must all match (--match type=score --match league=nba). Other messages are counted by what they were (type=heartbeat, text, binary), not measured',
    parse: parseMatches
  }
])
