/**
 * Why a plain WebSocket client's connection ended, as the reason it is counted under: the
 * close frame's status code (with its RFC 6455 name) and the server's reason text, or the
 * handshake's HTTP status, or the socket error. A close before the client's first round trip
 * is a refusal (a server that turns a client away after accepting the handshake, e.g.
 * 1008 on a bad token) and says so.
 */
import { PAYLOAD_TOO_LARGE } from '../../wire/limits.js'
import { certificateHint } from '../../../lib/input/tls-trust.js'

/** RFC 6455 §7.4.1 and the IANA registry: names of the status codes a server may send. */
const CLOSE_NAMES = Object.freeze(/** @type {Record<number, string>} */ ({
  1000: 'normal closure',
  1001: 'going away',
  1002: 'protocol error',
  1003: 'unsupported data',
  1005: 'no status',
  1007: 'invalid payload',
  1008: 'policy violation',
  1009: 'message too big',
  1010: 'mandatory extension',
  1011: 'internal error',
  1012: 'service restart',
  1013: 'try again later',
  1014: 'bad gateway'
}))

/** The reason the swarm counts a client closed on purpose under (the tracker keeps it out of storms). */
export const CLIENT_CLOSE = 'io client disconnect'
/** An attempt whose handshake did not finish within the connect timeout. */
export const CONNECT_TIMEOUT = 'timeout'

/**
 * @typedef {object} EndInfo
 * @property {number} closeCode the close frame's status; 0 = no close frame came
 * @property {string} closeReason the close frame's reason text
 * @property {string} error the socket or handshake error; '' = none
 * @property {boolean} tooLarge a message over --max-payload ended it
 */

/**
 * @param {EndInfo} end
 * @param {boolean} settled the client had its first round trip (it was counted connected)
 * @returns {string}
 */
export function endReason (end, settled) {
  if (end.tooLarge) return PAYLOAD_TOO_LARGE
  if (end.closeCode !== 0) {
    const name = CLOSE_NAMES[end.closeCode]
    const text = `close ${end.closeCode}${name ? ` ${name}` : ''}${end.closeReason ? `: ${end.closeReason}` : ''}`
    return settled ? text : `refused: ${text}`
  }
  if (end.error !== '') {
    const status = /^Unexpected server response: (\d+)/.exec(end.error)
    return status ? `handshake refused: HTTP ${status[1]}` : end.error
  }
  return settled ? 'connection lost (no close frame)' : 'closed before the first round trip (no close frame)'
}

/**
 * A socket error as a short reason: its code when it is a system error's (ECONNREFUSED,
 * ECONNRESET: no addresses, so one key per kind); a certificate failure's message with its code in
 * brackets (`self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)`), as the Socket.IO
 * engines report it, so the summary can name the fix (--ca, --insecure); else its message.
 * @param {Error & { code?: string }} error
 */
export function errorText (error) {
  if (typeof error.code !== 'string') return error.message
  if (/^E[A-Z_]+$/.test(error.code)) return error.code
  return certificateHint(error.code) === '' ? error.message : `${error.message} (${error.code})`
}
