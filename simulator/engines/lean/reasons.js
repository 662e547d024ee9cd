/**
 * The reasons a lean client's transport ends under, worded as socket.io-client words them (so
 * both engines count the same failures under the same keys). A leaf: the transports import it.
 */

/**
 * A transport error's reason with what failed, as the sio engine reports socket.io-client's:
 * `xhr poll error (HTTP 503)`, `websocket error (ECONNREFUSED)`.
 * @param {string} reason
 * @param {string | undefined} detail
 */
export function withDetail (reason, detail) {
  return detail ? `${reason} (${detail})` : reason
}

/**
 * What a refused WebSocket handshake says: `HTTP <status>` for a status other than 101, as ws's
 * "Unexpected server response: <status>" is reported; undefined for any other fault.
 * @param {string} message ws's error message, or the built-in client's problem (the same wording)
 */
export function refusalDetail (message) {
  const status = /Unexpected server response: (\d+)/.exec(message)
  return status === null ? undefined : `HTTP ${status[1]}`
}
