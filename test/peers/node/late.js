/**
 * Late joiners, for ioswarm's test that a client that connected after a message was sent does
 * not expect it (test/interop/late-joiners.test.js): a server that takes a message's send time
 * at once and delivers it later, while new clients connect in the gap. The server forces the
 * order, never timing, on one namespace (LATE_FIRST=F, LATE_COUNT=L in the peer's environment),
 * in the API of socket.io 2, 3 and 4 alike:
 *
 * - Past F open clients, a connect waits in a middleware until the gate opens (a client that
 *   leaves lets the next one in: the swarm's first look at the server is one, briefly).
 * - Once the F first clients have each sent a chat line (so each knew it was connected), the
 *   next line one of them sends, with its sentAt after that moment, is held, and a `tick`
 *   `{ id: 'late-tick', sentAt }` is stamped; 20 ms later the gate opens; once L late clients
 *   have connected and each sent a line, the held line is relayed and the tick broadcast, both
 *   to every client of the namespace (the sender too).
 * - `sent()`: `{ line, tick }` (their ids) once both were sent, else `{}` (GET /late).
 */

const WAIT_MS = 30000

/**
 * @param {any} nsp the namespace (socket.io 2, 3 or 4)
 * @param {{ first: number, count: number }} counts
 */
export function createLate (nsp, { first, count }) {
  let admitted = 0
  let open = false
  /** @type {(() => void)[]} */
  const held = []
  /** @type {Set<any>} */
  const firsts = new Set()
  /** @type {any[]} */
  const lates = []
  /** @type {Set<any>} */
  const spoke = new Set()
  let allSpokeAt = 0
  let started = false
  /** @type {{ line?: string, tick?: string }} */
  let sent = {}

  const admit = (/** @type {any} */ socket, /** @type {() => void} */ next) => {
    admitted++
    socket.conn.once('close', () => {
      admitted--
      if (!open && admitted < first) held.shift()?.()
    })
    next()
  }

  /** @param {any} line */
  async function sendLate (line) {
    const tick = { id: 'late-tick', sentAt: Date.now() }
    // Clearly after both sends on any clock's millisecond, before anyone else connects.
    await new Promise((resolve) => setTimeout(resolve, 20))
    open = true
    for (const release of held.splice(0)) release()
    const deadline = Date.now() + WAIT_MS
    while (!(lates.length >= count && lates.slice(0, count).every((s) => spoke.has(s)))) {
      if (Date.now() > deadline) return
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    nsp.emit('chat', line)
    nsp.emit('tick', tick)
    sent = { line: line.id, tick: tick.id }
  }

  return {
    /** The gate: a middleware (socket, next). */
    use (/** @type {any} */ socket, /** @type {() => void} */ next) {
      if (open || admitted < first) admit(socket, next)
      else held.push(() => admit(socket, next))
    },
    /** A socket connected: one of the first clients, or a late one. */
    connected (/** @type {any} */ socket) {
      if (open) lates.push(socket)
      else {
        firsts.add(socket)
        socket.on('disconnect', () => firsts.delete(socket))
      }
    },
    /**
     * A chat line from `socket`: true when it is the line held (sent later).
     * @param {any} socket
     * @param {any} line
     */
    held (socket, line) {
      spoke.add(socket)
      if (allSpokeAt === 0 && firsts.size === first && [...firsts].every((s) => spoke.has(s))) allSpokeAt = Date.now()
      if (started || allSpokeAt === 0 || !firsts.has(socket) || !(typeof line?.sentAt === 'number' && line.sentAt > allSpokeAt)) return false
      started = true
      sendLate(line)
      return true
    },
    sent: () => sent
  }
}
