/**
 * First contact with the namespace, before the swarm starts: one polling session sends the
 * CONNECT the swarm will send and reads the answer, so that what would otherwise look like a
 * network problem is named: a parser mismatch (a msgpack server spoken to in JSON, or the
 * reverse), a namespace refused and why. Best effort: a server that answers nothing useful
 * gives no diagnosis, never an error.
 */
import { connectErrorMessage, encodePayloadV3, splitPayloadV3 } from '../engines/lean/codec.js'
import { inspectionSession } from '../sessions/inspection.js'
import { onFirstUse } from '../../lib/lazy-require.js'

/** The msgpack parser, for a --parser msgpack server only. */
const msgpack = /** @type {() => typeof import('socket.io-msgpack-parser')} */ (onFirstUse('socket.io-msgpack-parser'))

/**
 * @typedef {object} Diagnosis
 * @property {'ok' | 'parser-mismatch' | 'namespace-refused' | 'unknown'} verdict
 * @property {string | null} problem what to tell the user, with the flag that fixes it
 */

/**
 * @param {{ url: string, path: string, query?: Record<string, string>, headers?: Record<string, string>, auth?: Record<string, unknown>, namespace: string, parser: string, eio: 3 | 4, timeoutMs?: number,
 *   http?: import('../sessions/inspection.js').InspectionSession }} options
 *   query, headers and auth: the first client's (--query, --header, --auth), so a server that wants them does not refuse the first contact;
 *   http: the first client's headers, cookies and TLS trust (default: `headers` alone)
 * @returns {Promise<Diagnosis>}
 */
export async function diagnoseConnect (options) {
  const other = options.parser === 'msgpack' ? 'json' : 'msgpack'
  const answer = await tryConnect(options, options.parser)
  if (answer.kind === 'connected') return { verdict: 'ok', problem: null }
  if (answer.kind === 'refused') return { verdict: 'namespace-refused', problem: `the server refused namespace ${options.namespace}: ${answer.message}` }
  if (answer.kind === 'closed' && (await tryConnect(options, other)).kind === 'connected') {
    return {
      verdict: 'parser-mismatch',
      problem: other === 'msgpack'
        ? 'the server closed the connection on a JSON CONNECT and accepted a msgpack one: it speaks socket.io-msgpack-parser; add --parser msgpack (with --engine sio)'
        : 'the server closed the connection on a msgpack CONNECT and accepted a JSON one: it uses socket.io\'s default parser; remove --parser msgpack'
    }
  }
  return { verdict: 'unknown', problem: null }
}

/**
 * One polling session: open, CONNECT in `parser` (a v2 server connects '/' by itself), read the
 * answer, close. Closed whatever the answer: a session left open is a client the server counts
 * until its ping timeout (tens of seconds), and a gate or a limit on clients counts it too.
 * @param {Parameters<typeof diagnoseConnect>[0]} options
 * @param {string} parser
 * @returns {Promise<{ kind: 'connected' | 'refused' | 'closed' | 'unknown', message?: string }>}
 */
async function tryConnect (options, parser) {
  const { url, path, query = {}, headers = {}, auth, namespace, eio, timeoutMs = 3000, http = inspectionSession({ url, path }, { headers }) } = options
  const base = new URL(path, url)
  const params = { ...query, EIO: String(eio), transport: 'polling' }
  base.search = new URLSearchParams(params).toString()
  const signal = AbortSignal.timeout(timeoutMs)
  /** @type {URL | null} */
  let session = null
  try {
    const packets = split(await (await http.fetch(base, { signal })).text(), eio)
    const open = packets?.[0]
    if (!packets || !open?.startsWith('0')) return { kind: 'unknown' }
    session = new URL(base)
    session.searchParams.set('sid', JSON.parse(open.slice(1)).sid)
    const poll = async () => split(await (await http.fetch(/** @type {URL} */ (session), { signal })).text(), eio) ?? []
    if (eio === 3 && namespace === '/' && parser === 'json') {
      // A v2 server connects '/' by itself: its `40` is in the open response, or, past a
      // middleware on '/', its answer (`40` or `44`) comes with the next poll.
      return classify(packets.slice(1), parser) ?? classify(await poll(), parser) ?? { kind: 'connected' }
    }
    // Socket.IO v2 has no CONNECT payload: auth goes with v4+ only.
    const data = eio === 3 || auth === undefined ? '' : JSON.stringify(auth)
    const connect = parser === 'msgpack'
      ? `b${Buffer.from(msgpackEncode(namespace, eio === 3 ? undefined : auth)).toString('base64')}`
      : `40${namespace === '/' ? '' : `${namespace},`}${data}`
    await (await http.fetch(session, { method: 'POST', body: eio === 3 ? encodePayloadV3([connect]) : connect, signal })).text()
    return classify(await poll(), parser) ?? { kind: 'unknown' }
  } catch {
    return { kind: 'unknown' }
  } finally {
    if (session !== null) await http.closeEngineSession(session, eio, timeoutMs)
  }
}

/**
 * @param {string[]} packets the answer to a CONNECT
 * @param {string} parser
 * @returns {{ kind: 'connected' | 'refused' | 'closed', message?: string } | null}
 */
function classify (packets, parser) {
  for (const packet of packets) {
    if (packet === '1') return { kind: 'closed' }
    if (parser === 'json' && packet.startsWith('40')) return { kind: 'connected' }
    if (parser === 'json' && packet.startsWith('44')) {
      const comma = packet.startsWith('44/') ? packet.indexOf(',') : 1
      return { kind: 'refused', message: connectErrorMessage(packet.slice(comma + 1)) ?? 'no reason given' }
    }
    if (parser === 'msgpack' && packet.startsWith('b')) {
      const decoded = msgpackDecode(Buffer.from(packet.slice(1), 'base64'))
      if (decoded?.type === 0) return { kind: 'connected' }
      if (decoded?.type === 4) return { kind: 'refused', message: String(decoded.data?.message ?? decoded.data ?? 'no reason given') }
    }
  }
  return null
}

/**
 * @param {string} body
 * @param {3 | 4} eio
 */
function split (body, eio) {
  return eio === 3 ? splitPayloadV3(body) : body.split('\x1e')
}

/**
 * @param {string} nsp
 * @param {Record<string, unknown>} [auth]
 */
function msgpackEncode (nsp, auth) {
  const packet = { type: 0, nsp, ...(auth === undefined ? {} : { data: auth }) }
  const [bytes] = /** @type {Uint8Array[]} */ (/** @type {unknown} */ (new (msgpack().Encoder)().encode(packet)))
  return bytes
}

/**
 * @param {Buffer} bytes
 * @returns {{ type?: number, data?: any } | null}
 */
function msgpackDecode (bytes) {
  /** @type {any} */
  let packet = null
  const decoder = new (msgpack().Decoder)()
  decoder.on('decoded', (/** @type {any} */ p) => { packet = p })
  try {
    decoder.add(bytes)
  } catch {}
  return packet
}
