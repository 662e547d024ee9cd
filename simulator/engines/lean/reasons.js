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
