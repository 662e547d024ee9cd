/**
 * The delivery counts of a message, a rollup of messages, a row or a total: copies expected
 * and received, deliveries missing, copies to a client that should not have had them
 * (misdelivered), second copies (duplicates) and a sender's own copies (echo). One shape and
 * one sum for every place that adds them up.
 */

/**
 * @typedef {object} DeliveryCounts
 * @property {number} expected
 * @property {number} received
 * @property {number} missing
 * @property {number} misdelivered
 * @property {number} duplicates
 * @property {number} echo
 */

/**
 * Counts of nothing yet.
 * @returns {DeliveryCounts}
 */
export function emptyDeliveryCounts () {
  return { expected: 0, received: 0, missing: 0, misdelivered: 0, duplicates: 0, echo: 0 }
}

/**
 * Adds one report's counts to a running total; counts a report leaves out (older results
 * carry no misdelivered, duplicates or echo) add 0.
 * @param {DeliveryCounts} into changed in place
 * @param {{ expected: number, received: number, missing: number, misdelivered?: number, duplicates?: number, echo?: number }} from
 */
export function addDeliveryCounts (into, from) {
  into.expected += from.expected
  into.received += from.received
  into.missing += from.missing
  into.misdelivered += from.misdelivered ?? 0
  into.duplicates += from.duplicates ?? 0
  into.echo += from.echo ?? 0
}
