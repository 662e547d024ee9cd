/**
 * Source ports chosen by the simulator, per source address (`--source-address`).
 * Binding a source address with `localAddress` alone makes the kernel pick a port that is
 * free for *every* destination, searching the whole range on each connect (measured: 59 s
 * vs 7 s for 19,500 clients). Tsung and the uWebSockets benchmark pick the (address, port)
 * pair themselves; so does this: each address walks ip_local_port_range with a cursor,
 * never hands out a port still held, and a port the kernel refuses (EADDRINUSE at bind,
 * EADDRNOTAVAIL at connect: another process's socket, a TIME_WAIT to the same destination)
 * is skipped and the next one tried, a bounded number of times. A port is held until its
 * socket closes; released ports come round again only after the cursor has passed the
 * rest of the range, which gives TIME_WAIT the longest time to clear.
 *
 * One SourcePorts per destination: the limit is per (source address, destination), so the
 * same port may serve two destinations. Several processes on one host take disjoint slices
 * of the range (`slice`), so they never race for a port.
 */
import { readFileSync } from 'node:fs'
import net from 'node:net'
import { performance } from 'node:perf_hooks'

/** node:tls as require() gives it, on the first TLS connection: its ES module facade reads every export at once, Node's root certificates too (a process loads only what it uses). */
const tlsModule = () => /** @type {typeof import('node:tls')} */ (process.getBuiltinModule('node:tls'))

/** Linux's default ip_local_port_range, used where /proc cannot be read. */
const DEFAULT_PORT_RANGE = Object.freeze({ low: 32768, high: 60999 })
/** Ports tried for one connection before it fails: refusals are rare, a run of them means the range is taken. */
export const MAX_PORT_TRIES = 32
/**
 * A connect that has not completed after this long fails (socket.io-client's and the lean
 * engine's connect timeout). The caller gets the socket only once it is connected (a refused
 * port must be retried on a new socket), so a caller that gives up earlier cannot cancel it:
 * without this bound, a server that stops accepting would leave each attempt's socket (and
 * file descriptor) waiting for the kernel's SYN retries, about two minutes.
 */
export const CONNECT_TIMEOUT_MS = 20000
/** Errors of a port the kernel will not give this connection (the next one may do). */
const CLASHES = new Set(['EADDRINUSE', 'EADDRNOTAVAIL'])

/**
 * ip_local_port_range, or Linux's default when it cannot be read.
 * @param {string} [file]
 * @returns {{ low: number, high: number }}
 */
export function readPortRange (file = '/proc/sys/net/ipv4/ip_local_port_range') {
  try {
    const [low, high] = readFileSync(file, 'utf8').trim().split(/\s+/).map(Number)
    if (Number.isInteger(low) && Number.isInteger(high) && low >= 1 && high <= 65535 && low <= high) return { low, high }
  } catch {}
  return { ...DEFAULT_PORT_RANGE }
}

/**
 * Slice `index` of `count` equal slices of a range (the last takes the remainder).
 * @param {{ low: number, high: number }} range
 * @param {{ index: number, count: number } | null | undefined} slice
 */
export function sliceRange (range, slice) {
  if (!slice || slice.count <= 1) return range
  const size = Math.floor((range.high - range.low + 1) / slice.count)
  const low = range.low + slice.index * size
  return { low, high: slice.index === slice.count - 1 ? range.high : low + size - 1 }
}

export class SourcePorts {
  /**
   * @param {{ addresses: string[], range: { low: number, high: number }, stride?: number, start?: number }} options
   *   stride: client i uses address floor(i / stride) % addresses (the destination pool's count, so that
   *   addresses and destinations do not move in step); start: where the cursors begin, 0..1 of the range
   */
  constructor ({ addresses, range, stride = 1, start = 0 }) {
    this.addresses = addresses
    this.low = range.low
    this.size = range.high - range.low + 1
    this.stride = stride
    /** Per address: 1 = held. */
    this.held = addresses.map(() => new Uint8Array(this.size))
    this.cursor = addresses.map(() => Math.floor(start * this.size) % this.size)
    this.inUse = addresses.map(() => 0)
    /** Ports the kernel refused, per address. */
    this.refused = addresses.map(() => 0)
    /** Connections that found no free port, per address. */
    this.exhausted = addresses.map(() => 0)
  }

  /** @param {number} i client index */
  addressOf (i) {
    return Math.floor(i / this.stride) % this.addresses.length
  }

  /**
   * A port of address `a` that is not held, now held; 0 when every port is.
   * @param {number} a
   */
  acquire (a) {
    const held = this.held[a]
    if (this.inUse[a] >= this.size) return 0
    let k = this.cursor[a]
    while (held[k] === 1) k = k + 1 === this.size ? 0 : k + 1
    held[k] = 1
    this.inUse[a]++
    this.cursor[a] = k + 1 === this.size ? 0 : k + 1
    return this.low + k
  }

  /**
   * @param {number} a
   * @param {number} port
   */
  release (a, port) {
    const k = port - this.low
    if (this.held[a][k] === 0) return
    this.held[a][k] = 0
    this.inUse[a]--
  }

  /** Per address: ports held, refused by the kernel, and connections that found none free. */
  stats () {
    return this.addresses.map((address, a) => ({ address, inUse: this.inUse[a], refused: this.refused[a], exhausted: this.exhausted[a] }))
  }
}

/**
 * Connects `socket` (a net.Socket of the caller's, not yet connected) from address `a` of
 * `ports` and a port of its own: the raw WebSocket and the built-in HTTP client open their
 * sockets so. The caller releases the port when the socket is done with it.
 * @param {net.Socket} socket
 * @param {SourcePorts} ports
 * @param {number} a
 * @param {string} host
 * @param {number} port
 * @returns {number} the source port taken, or 0: every port of the address is held (counted in `exhausted`; nothing connected)
 */
export function connectOwnPort (socket, ports, a, host, port) {
  const localPort = ports.acquire(a)
  if (localPort === 0) {
    ports.exhausted[a]++
    return 0
  }
  socket.connect({ port, host, localAddress: ports.addresses[a], localPort })
  return localPort
}

/**
 * @typedef {object} Target
 * @property {string} host
 * @property {number} port
 * @property {import('node:tls').ConnectionOptions | null} [tls] TLS on top of the TCP connection (servername, ALPN…)
 */

/**
 * Opens a TCP (and TLS) connection from address `a` of `ports` and an explicit port of it,
 * trying the next port when the kernel refuses one; the port is released when the socket
 * closes. The callback gets the connected socket (undici's `connect`, http.Agent's
 * `createConnection` and ws's `createConnection` all take this form).
 * @param {SourcePorts} ports
 * @param {number} a
 * @param {Target} target
 * @param {(error: Error | null, socket?: net.Socket) => void} callback
 * @param {{ timeoutMs?: number, pending?: { socket: net.Socket | null }, onTls?: ((tlsMs: number) => void) | null }} [options] pending: holds the socket while
 *   it connects, so that a caller that gives up can destroy it at once (the callback is not called then); onTls: told the
 *   TLS handshake time (TCP up → TLS ready) of each TLS connection
 */
export function connectFrom (ports, a, target, callback, { timeoutMs = CONNECT_TIMEOUT_MS, pending, onTls } = {}) {
  let tries = 0
  const attempt = () => {
    const localPort = ports.acquire(a)
    if (localPort === 0) {
      ports.exhausted[a]++
      return callback(Object.assign(new Error(`no free source port on ${ports.addresses[a]} (every port of the range is held)`), { code: 'EADDRNOTAVAIL' }))
    }
    const socket = net.connect({ host: target.host, port: target.port, localAddress: ports.addresses[a], localPort })
    socket.once('close', () => ports.release(a, localPort))
    if (pending) pending.socket = socket
    socket.setTimeout(timeoutMs)
    const onTimeout = () => socket.destroy(Object.assign(new Error(`connect timed out after ${timeoutMs} ms`), { code: 'ETIMEDOUT' }))
    socket.once('timeout', onTimeout)
    const onError = (/** @type {Error & { code?: string }} */ error) => {
      socket.off('connect', onConnect)
      socket.off('timeout', onTimeout)
      if (pending) pending.socket = null
      if (CLASHES.has(error.code ?? '') && ++tries < MAX_PORT_TRIES) {
        ports.refused[a]++
        attempt()
      } else {
        callback(error)
      }
    }
    const onConnect = () => {
      socket.off('error', onError)
      socket.off('timeout', onTimeout)
      socket.setTimeout(0)
      if (pending) pending.socket = null
      if (!target.tls) return callback(null, socket)
      const tcpAt = performance.now()
      const secure = tlsModule().connect({ ...target.tls, socket })
      secure.once('error', callback)
      secure.once('secureConnect', () => {
        secure.off('error', callback)
        onTls?.(performance.now() - tcpAt)
        callback(null, secure)
      })
    }
    socket.once('error', onError)
    socket.once('connect', onConnect)
  }
  attempt()
}

/**
 * Sources of one destination for the engines: null when --source-address is not given.
 * @param {string[] | undefined} addresses
 * @param {{ index: number, count: number } | null | undefined} slice this process's share of the port range
 * @param {number} stride
 * @param {{ low: number, high: number }} [range]
 */
export function createSourcePorts (addresses, slice, stride, range = readPortRange()) {
  if (!addresses || addresses.length === 0) return null
  // Processes without a slice of their own (several standalone simulators on one host) start
  // at a random place, so that they rarely meet; a port one holds is refused to the other and skipped.
  return new SourcePorts({ addresses, range: sliceRange(range, slice), stride, start: slice ? 0 : Math.random() })
}

/** TLS options a connector hands on to tls.connect (the rest of a request's options are HTTP's). */
const TLS_KEYS = [
  'servername', 'rejectUnauthorized', 'secureContext', 'ca', 'cert', 'key', 'pfx', 'passphrase', 'ALPNProtocols', 'checkServerIdentity', 'ciphers', 'session'
]

/**
 * A `createConnection` / `connect` function for http.Agent, ws and undici: every connection
 * from address `a` and a port of its own (a client's connections all leave from its address).
 * @param {SourcePorts} ports
 * @param {number} a
 * @param {boolean} secure
 * @param {{ timeoutMs?: number, pending?: { socket: net.Socket | null }, tls?: object | null, onTls?: ((tlsMs: number) => void) | null }} [connectOptions] see connectFrom;
 *   tls: TLS options of every connection (--ca, --insecure) under those of the request
 * @returns {(options: any, callback: (error: Error | null, socket?: net.Socket) => void) => undefined}
 */
export function connectorFor (ports, a, secure, connectOptions) {
  return (options, callback) => {
    /** @type {Record<string, unknown> | null} */
    let tlsOptions = null
    const host = String(options.hostname ?? options.host).replace(/^\[(.*)\]$/, '$1')
    if (secure) {
      tlsOptions = { ...connectOptions?.tls }
      for (const key of TLS_KEYS) if (options[key] !== undefined) tlsOptions[key] = options[key]
      // SNI names a host, never an address (RFC 6066): Node warns (DEP0123) when given one.
      tlsOptions.servername ??= net.isIP(host) ? '' : host
    }
    const port = Number(options.port) || (secure ? 443 : 80)
    connectFrom(ports, a, { host, port, tls: tlsOptions }, callback, connectOptions)
    return undefined
  }
}
