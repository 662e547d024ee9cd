/**
 * The built-in HTTP client's keep-alive connections for POSTs from one source address, shared
 * by the clients of that address as undici's Pool of POST_CONNECTIONS is (polling.js): at most
 * `max` open at once, the most recently freed one taken first, and POSTs that find every one busy
 * wait in order for the next that is freed or for room to open one. A connection that closes (the
 * server's keep-alive timeout, an error, a POST aborted on it) makes room: a waiting POST opens
 * its replacement. Without the bound, a burst of POSTs (every client's CONNECT, a reconnect wave)
 * opened one connection each: at 5,000 clients about 2,500 more file descriptors and ephemeral
 * ports than the clients' own polls. Which client a POST is for is in the request itself (its
 * head carries that client's headers and cookies; its answer's Set-Cookie goes to that client's
 * jar), never in the connection.
 */

/** @typedef {import('../../../wire/http-socket.js').HttpSocket} HttpSocket */

/**
 * A POST that can wait for a connection.
 * @typedef {object} Waiting
 * @property {boolean} over it ended (aborted while it waited): skipped
 * @property {() => void} send takes a connection now (the pool has an idle one or room for one)
 * @property {(conn: HttpSocket) => void} sendOn goes on this connection, just freed
 */

/** Waiting POSTs already served that the queue keeps before it drops them in one go. */
const COMPACT_AFTER = 1024

export class PostPool {
  /**
   * @param {number} max most connections open at once
   * @param {() => HttpSocket} open opens a connection from this pool's source address
   */
  constructor (max, open) {
    this.max = max
    this.openConnection = open
    /** @type {Set<HttpSocket>} connections open or opening (busy or idle): closed at the session's end */
    this.conns = new Set()
    /** @type {HttpSocket[]} idle connections, the most recently freed last (some may have closed since: skipped) */
    this.idle = []
    /** @type {Waiting[]} POSTs waiting for a connection, in order, from `head` on */
    this.waiting = []
    this.head = 0
    /** @type {Waiting[]} POSTs waiting for a new connection (sent again after a reused one lost them): served first, never on a freed one */
    this.fresh = []
  }

  /**
   * A connection for a POST: an idle one (unless `fresh`), else a new one while there is room;
   * null when every connection is busy (then `wait`).
   * @param {boolean} fresh a new connection (a POST lost on a reused one is sent again so)
   * @returns {HttpSocket | null}
   */
  take (fresh) {
    if (!fresh) {
      while (this.idle.length > 0) {
        const conn = /** @type {HttpSocket} */ (this.idle.pop())
        if (conn.ready) return conn
      }
    }
    if (this.conns.size >= this.max) return null
    const conn = this.openConnection()
    this.conns.add(conn)
    conn.once('close', () => {
      this.conns.delete(conn)
      this.closed()
    })
    return conn
  }

  /**
   * A POST waits for the next connection freed or opened (`fresh`: opened).
   * @param {Waiting} req
   * @param {boolean} fresh
   */
  wait (req, fresh) {
    if (fresh) this.fresh.push(req)
    else this.waiting.push(req)
  }

  /**
   * A connection finished its POST and can take another: the next waiting POST goes on it, else it waits, idle.
   * @param {HttpSocket} conn
   */
  freed (conn) {
    const next = this.next()
    if (next === null) this.idle.push(conn)
    else next.sendOn(conn)
  }

  /** A connection closed: room for another, which the next waiting POST opens. */
  closed () {
    while (this.conns.size < this.max) {
      const next = this.fresh.length > 0 ? /** @type {Waiting} */ (this.fresh.shift()) : this.next()
      if (next === null) return
      if (!next.over) next.send()
    }
  }

  /** The next POST still waiting, taken from the queue; null when none. */
  next () {
    const waiting = this.waiting
    while (this.head < waiting.length) {
      const req = waiting[this.head++]
      if (this.head >= COMPACT_AFTER && this.head * 2 >= waiting.length) {
        waiting.splice(0, this.head)
        this.head = 0
      }
      if (!req.over) return req
    }
    if (this.head > 0) {
      waiting.length = 0
      this.head = 0
    }
    return null
  }

  /**
   * The end of the session: its connections are discarded and the POSTs still waiting handed
   * back (the caller aborts them). The session drops the pool: a later POST makes a new one.
   * @returns {Waiting[]}
   */
  close () {
    const left = [...this.fresh, ...this.waiting.slice(this.head)]
    this.waiting = []
    this.fresh = []
    this.head = 0
    this.idle = []
    for (const conn of this.conns) conn.discard()
    return left
  }
}
