/**
 * One error class with stable codes, and the process exit codes the CLI maps them to.
 * The library throws these; only CLI files turn them into exit codes.
 */

/** Exit codes of every ioswarm command (documented in docs/ci.md, "Exit codes"). */
export const EXIT = Object.freeze({
  OK: 0,
  /** A runtime failure: a server that never accepted a client, Redis unreachable, … */
  RUNTIME: 1,
  /** Bad flags, bad config: nothing was started. */
  USAGE: 2,
  /** The run completed but a `--assert` threshold failed. */
  THRESHOLD: 3,
  /** `ioswarm capacity` could not decide: a step its own simulators limited (saturated, busy, out of descriptors) stopped the search. */
  INCONCLUSIVE: 4,
  /** Interrupted by a second signal before results could be flushed. */
  INTERRUPTED: 130
})

/** Stable error codes. */
export const CODES = Object.freeze({
  INVALID_OPTION: 'IOSWARM_ERR_INVALID_OPTION',
  NO_CLIENT_CONNECTED: 'IOSWARM_ERR_NO_CLIENT_CONNECTED',
  LIMIT: 'IOSWARM_ERR_LIMIT',
  SERVER: 'IOSWARM_ERR_SERVER',
  BROADCAST: 'IOSWARM_ERR_BROADCAST',
  /** The first answer of a --publish API was 401, 403 or 404: no later message could fare better (a usage error, exit 2). */
  PUBLISH_REFUSED: 'IOSWARM_ERR_PUBLISH_REFUSED',
  COLLECTOR: 'IOSWARM_ERR_COLLECTOR',
  THRESHOLD: 'IOSWARM_ERR_THRESHOLD',
  INPUT: 'IOSWARM_ERR_INPUT',
  /** The address answers, with no Engine.IO at the path (HTTP 404 on polling and WebSocket): --url or --path is wrong. */
  NO_ENGINE_IO: 'IOSWARM_ERR_NO_ENGINE_IO',
  /** The look before the swarm found that no client can succeed (a certificate no client trusts): nothing was started (exit 2). */
  FIRST_CONTACT: 'IOSWARM_ERR_FIRST_CONTACT',
  /** Every client's --login failed: the swarm ends (runtime, exit 1) instead of waiting for clients that cannot come. */
  LOGIN: 'IOSWARM_ERR_LOGIN',
  /** An emit's ack did not come within --ack-timeout (a count in results, never thrown). */
  ACK_TIMEOUT: 'IOSWARM_ERR_ACK_TIMEOUT',
  /** An emit's ack was still awaited when the swarm closed its client on purpose (a ramp down, the run's end): a count, never thrown. */
  ACK_CLOSED: 'IOSWARM_ERR_ACK_CLOSED'
})

/** @type {Record<string, number>} */
const EXIT_BY_CODE = {
  [CODES.INVALID_OPTION]: EXIT.USAGE,
  [CODES.LIMIT]: EXIT.USAGE,
  [CODES.INPUT]: EXIT.USAGE,
  [CODES.NO_ENGINE_IO]: EXIT.USAGE,
  [CODES.PUBLISH_REFUSED]: EXIT.USAGE,
  [CODES.FIRST_CONTACT]: EXIT.USAGE,
  [CODES.THRESHOLD]: EXIT.THRESHOLD
}

export class IoswarmError extends Error {
  /**
   * @param {string} code one of CODES
   * @param {string} message what went wrong and, where it helps, what is allowed
   * @param {{ cause?: unknown, flag?: string }} [extra]
   */
  constructor (code, message, extra = {}) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause })
    this.name = 'IoswarmError'
    this.code = code
    /** The flag or field the error is about, when there is one. */
    this.flag = extra.flag
  }

  /** The exit code a CLI should use for this error. */
  get exitCode () {
    return EXIT_BY_CODE[this.code] ?? EXIT.RUNTIME
  }
}

/**
 * A usage error about one flag or config field.
 * @param {string} flag e.g. '--clients'
 * @param {string} message e.g. 'must be a whole number from 1 to 100000, got "abc"'
 */
export function invalidOption (flag, message) {
  return new IoswarmError(CODES.INVALID_OPTION, `${flag} ${message}`, { flag })
}

/**
 * The error an engine hands an emit's ack callback when no ack came in time: told from the
 * other ack failures (the connection ended first) by its code, whatever an engine's text.
 */
export function ackTimeout () {
  return new IoswarmError(CODES.ACK_TIMEOUT, 'operation has timed out')
}

/**
 * The error an ack callback hears instead of the engine's when the swarm itself closed the
 * client (a ramp down, the run's end): counted as `closed`, apart from failures.
 */
export function ackClosed () {
  return new IoswarmError(CODES.ACK_CLOSED, 'the client was closed on purpose before the ack came')
}

/**
 * Whether an ack callback's error says the swarm closed the client on purpose first.
 * @param {unknown} error
 */
export function isAckClosed (error) {
  return error instanceof IoswarmError && error.code === CODES.ACK_CLOSED
}

/**
 * Whether an ack callback's error is a timeout (else the ack failed: the connection ended first).
 * @param {unknown} error
 */
export function isAckTimeout (error) {
  return error instanceof IoswarmError && error.code === CODES.ACK_TIMEOUT
}
