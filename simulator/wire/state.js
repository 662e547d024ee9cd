/**
 * Where a client of the lean or plain WebSocket engine is in its life: one set of states for
 * both (a client is a small record without timers; its deadline for the state it is in lives
 * in the pool's DeadlineSweeper).
 */

export const STATE = Object.freeze({
  /** Not started, or ended for good (on purpose, server disconnect, refused). */
  IDLE: 0,
  /** Connecting: the handshake in progress (deadline: connect timeout). */
  OPENING: 1,
  /**
   * Open, the protocol's first exchange under way: the lean engine's namespace CONNECT (deadline:
   * ping timeout), the plain engine's first round trip (deadline: the connect timeout).
   */
  OPEN: 2,
  /** Connected (lean: a namespace acknowledged; deadline: ping timeout). */
  CONNECTED: 3,
  /** Waiting to reconnect (deadline: backoff delay). */
  WAITING: 4
})

/**
 * A client disconnected on purpose while it waits to reconnect: its backoff deadline is
 * cleared and it stays idle.
 * @param {import('./scheduler.js').DeadlineSweeper} sweeper
 * @param {{ i: number, state: number, reconnecting: boolean }} c
 * @returns {boolean} whether it was waiting (nothing more to do)
 */
export function stopWaiting (sweeper, c) {
  if (c.state !== STATE.WAITING) return false
  sweeper.clear(c.i)
  c.state = STATE.IDLE
  c.reconnecting = false
  return true
}
