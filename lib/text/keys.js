/**
 * Map keys made of several parts (a namespace and a room, an event and a round, …): the parts
 * joined by NUL, a character no namespace, room, event or message key holds, so two different
 * lists of parts never make the same key.
 */

/** What joins the parts of a key. */
export const KEY_SEPARATOR = '\u0000'

/**
 * One key of several parts, each as a template literal would print it (null as 'null').
 * @param {...unknown} parts
 * @returns {string}
 */
export function joinKey (...parts) {
  return parts.map(String).join(KEY_SEPARATOR)
}
