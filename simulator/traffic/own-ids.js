/**
 * The ids --emit stamps on its lines (`e<client>.<seq>`: the client's index over the whole run,
 * then its own count), written and read here only. The recorder knows such a line as one of
 * this process's own by reading its id, so an emit costs no entry in a map of sent ids (a
 * Map.set per emit, and ids kept until they age out: ≈ 4 % of an acked emit's CPU).
 */

/**
 * @param {number} client the client's index over the whole run (clientOffset + i)
 * @param {number} seq
 */
export function ownId (client, seq) {
  return `e${client}.${seq}`
}

/**
 * The client of this process that stamped `id`, read from the id itself.
 * @param {string} id
 * @param {number} clientOffset this process's first client over the whole run
 * @param {number} clients this process's clients
 * @returns {number} the client (0 … clients - 1), or -1: not an id of this form from this process
 */
export function ownIdSender (id, clientOffset, clients) {
  if (id.charCodeAt(0) !== 101) return -1 // 'e'
  let client = 0
  let k = 1
  for (; k < id.length && k < 17; k++) {
    const code = id.charCodeAt(k)
    if (code === 46) break // '.'
    if (code < 48 || code > 57) return -1
    client = client * 10 + code - 48
  }
  if (k === 1 || id.charCodeAt(k) !== 46 || k === id.length - 1) return -1
  for (let q = k + 1; q < id.length; q++) {
    const code = id.charCodeAt(q)
    if (code < 48 || code > 57) return -1
  }
  const i = client - clientOffset
  return i >= 0 && i < clients ? i : -1
}
