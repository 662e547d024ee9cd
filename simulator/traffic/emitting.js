/**
 * The one emit/ack machinery of a swarm: the flags (--join, --emit) and a scenario's hooks
 * (emit, emitWithAck, join, leave) send through it. It keeps, once for all of them:
 *
 * - the namespace sessions of every client (bumped at each connect and drop), so a timer or an
 *   ack of a session that ended bows out;
 * - the acks still pending (the run's end waits for them, bounded) and the stop flag;
 * - the counts of each sender (sent, acked, timed out, failed by reason, closed, emit → ack time),
 *   told apart by the ack error's code (lib/errors.js `isAckTimeout`, `isAckClosed`), never by
 *   its text: when every ack has come or failed, sent = acked + timed out + failed + closed;
 * - the clients the swarm closes on purpose (a ramp down, a --session-lifetime's end, the run's
 *   end): an ack they still awaited ends as `closed` (code ACK_CLOSED), not as a failure, even
 *   when the engine tells it after the client's next session has opened;
 * - the sender of each line: a line is never expected back at the client that emitted it,
 *   and a copy that comes back is an echo (the recorder's `ownLine`).
 */
import { monotonicMs } from '../../lib/measure/clock.js'
import { ackClosed, isAckClosed, isAckTimeout } from '../../lib/errors.js'
import { createHistogram, encode, recordMs, summarize } from '../../lib/measure/histogram.js'
import { createReasonCounter } from '../../lib/reasons.js'

/**
 * What one kind of emit did: a --emit's lines, a scenario's, or joins' acks.
 * @typedef {object} EmitCounts
 * @property {number} sent
 * @property {number} acked
 * @property {number} timedOut no ack within --ack-timeout
 * @property {number} failed the connection ended first, or the engine refused the ack
 * @property {number} closed the swarm closed the client on purpose first (a ramp down, the run's end)
 * @property {ReturnType<typeof createReasonCounter>} reasons failures by reason
 * @property {import('../../lib/measure/histogram.js').Histogram} ackTime emit → ack
 */

/** @returns {EmitCounts} */
export function createEmitCounts () {
  return { sent: 0, acked: 0, timedOut: 0, failed: 0, closed: 0, reasons: createReasonCounter(), ackTime: createHistogram() }
}

/**
 * The counts as a result holds them.
 * @param {EmitCounts} counts
 */
export function recordEmitCounts (counts) {
  return {
    sent: counts.sent,
    acked: counts.acked,
    timedOut: counts.timedOut,
    failed: counts.failed,
    closed: counts.closed,
    reasons: counts.reasons.record(),
    ackTime: { ...summarize(counts.ackTime), histogram: encode(counts.ackTime) }
  }
}

/**
 * Counts how an ack ended: by the error's code, never its text.
 * @param {EmitCounts} counts
 * @param {Error | null} error
 * @param {number} elapsedMs
 */
export function countAck (counts, error, elapsedMs) {
  if (error === null) {
    counts.acked++
    recordMs(counts.ackTime, elapsedMs)
  } else if (isAckTimeout(error)) counts.timedOut++
  else if (isAckClosed(error)) counts.closed++
  else {
    counts.failed++
    counts.reasons.add(error.message)
  }
}

/**
 * How an ack ended: null = acked (its args), else the engine's error.
 * @callback AckHandler
 * @param {Error | null} error
 * @param {unknown[]} answer
 * @param {number} elapsedMs emit → ack or failure
 * @returns {void}
 */

/**
 * @param {object} context
 * @param {{ clients: number, ackTimeoutMs: number }} context.options
 * @param {ReturnType<typeof import('../recording/namespace-recorders.js').createDeliveries>} context.deliveries
 * @param {() => import('../engines/types.js').EnginePool} context.pool
 * @param {import('../recording/figures.js').FiguresSink | null} [context.figures] each counted emit and its ack (its --window, the live metrics' second)
 */
export function createEmitting ({ options, deliveries, pool, figures = null }) {
  const namespaces = deliveries.namespaces
  /** A namespace session of client i: bumped at each connect and drop, so late callbacks bow out. */
  const sessions = namespaces.map(() => new Uint32Array(options.clients))
  /** Emits that wait for their ack and count in `pendingAcks` (the run's end waits for them). */
  let pendingAcks = 0
  let stopped = false
  /** Clients closed on purpose (1), until reopened; `closingAll`: the run's end closes every one. */
  const closing = new Uint8Array(options.clients)
  /** Times each client was closed on purpose: an ack sent before the last of them ends as `closed`. */
  const purposeCloses = new Uint32Array(options.clients)
  let closingAll = false

  /**
   * Emits `event` with `args` on client i's namespace k; with `onAck`, asks for an ack and
   * counts it in `counts` (acked and timed, timed out, or failed with its reason) before
   * `onAck` hears how it ended. Null counts: the caller counts (joins, whose acks may refuse).
   * @param {number} i
   * @param {number} k
   * @param {string} event
   * @param {unknown[]} args
   * @param {EmitCounts | null} counts
   * @param {{ onAck?: AckHandler, line?: boolean, pending?: boolean, answer?: boolean }} [how] line: false = not a
   *   line the server may relay (a join); pending: false = the run's end does not wait for it; answer: false = onAck
   *   does not read the ack's arguments (the engine may leave them undecoded: [])
   * @param {string | null} [encoded] `args` as JSON without the brackets, for an engine that writes text (EnginePool.emit)
   * @returns {boolean} false when the client is not connected there (nothing sent)
   */
  function send (i, k, event, args, counts, { onAck, line = true, pending = true, answer = true } = {}, encoded = null) {
    // Before the emit: the server may relay it back before pool().emit returns (a local server).
    if (line) deliveries.ownLine(i, k, args)
    if (onAck === undefined) {
      const sent = pool().emit(i, namespaces[k], event, args, undefined, options.ackTimeoutMs, true, encoded)
      if (sent && counts !== null) {
        counts.sent++
        figures?.sent()
      }
      return sent
    }
    const startMs = monotonicMs()
    const closesAtSend = purposeCloses[i]
    const sent = pool().emit(i, namespaces[k], event, args, (engineError, answerArgs) => {
      if (pending) pendingAcks--
      const onPurpose = closingAll || closing[i] === 1 || purposeCloses[i] !== closesAtSend
      const error = engineError !== null && !isAckTimeout(engineError) && onPurpose ? ackClosed() : engineError
      const elapsedMs = monotonicMs() - startMs
      if (counts !== null) {
        countAck(counts, error, elapsedMs)
        figures?.ack(error, elapsedMs)
      }
      onAck(engineError, answerArgs, elapsedMs)
    }, options.ackTimeoutMs, answer, encoded)
    if (sent) {
      if (counts !== null) {
        counts.sent++
        figures?.sent()
      }
      if (pending) pendingAcks++
    }
    return sent
  }

  return {
    namespaces,
    send,

    /**
     * The tracker's namespace event: a new session of client i's namespace k begins or ends.
     * Call before the senders hear of it.
     * @param {number} i
     * @param {number} k
     */
    nextSession (i, k) {
      sessions[k][i]++
    },

    /** @param {number} i @param {number} k @returns {number} client i's current session of namespace k */
    session: (i, k) => sessions[k][i],

    /** @param {number} i @param {number} k @param {number} session @returns {boolean} that session still lasts, and the swarm too */
    live: (i, k, session) => !stopped && sessions[k][i] === session,

    /**
     * The swarm closes client i on purpose (a ramp down, a --session-lifetime's end; -1: the run's
     * end closes them all), or opens it again (open): the acks it still awaits when it closes end
     * as `closed`, also those the engine tells of after it has opened again.
     * @param {number} i
     * @param {boolean} [open]
     */
    closeOnPurpose (i, open = false) {
      if (i === -1) closingAll = true
      else if (open) closing[i] = 0
      else {
        closing[i] = 1
        purposeCloses[i]++
      }
    },

    /** @returns {number} emits still waiting for their ack */
    pendingAcks: () => pendingAcks,

    /** @returns {boolean} the swarm is ending: nothing more is sent */
    stopped: () => stopped,

    /** No more emits (the swarm is ending); acks in flight are still counted. */
    stop () {
      stopped = true
    }
  }
}

/** @typedef {ReturnType<typeof createEmitting>} Emitting */
