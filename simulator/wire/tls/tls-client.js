/**
 * TLS for the built-in WebSocket client (wss://): what every connection of one destination
 * shares. One secure context for the process (Node's roots and --ca, or Node's roots alone),
 * where tls.connect() without one would build a context for each connection; SNI as `ws`
 * sends it (the host name, none for an address); the same verification as `ws` (Node's, so
 * a certificate failure carries the same code); and TLS session resumption: the latest
 * session ticket the server handed any client is offered by the next connection, so that a
 * swarm does not pay a full handshake per client (a server that refuses it does a full one).
 */
import net from 'node:net'
import { performance } from 'node:perf_hooks'

/** node:tls as require() gives it, on the first TLS connection: its ES module facade reads every export at once, Node's root certificates too (a process loads only what it uses). */
const tlsModule = () => /** @type {typeof import('node:tls')} */ (process.getBuiltinModule('node:tls'))

export class TlsClient {
  /**
   * @param {object} options
   * @param {string} options.host the destination's host name or address (no brackets)
   * @param {import('../../../lib/input/tls-trust.js').TlsTrust | null} options.trust --ca, --insecure; null = Node's defaults
   * @param {((tlsMs: number) => void) | null} [options.onTls] told each connection's TLS handshake time (TCP up → TLS ready)
   */
  constructor ({ host, trust, onTls = null }) {
    /** SNI: as ws's tlsConnect, the host name, or none ('') for an IP address. */
    this.servername = net.isIP(host) ? '' : host
    /** @type {import('node:tls').SecureContext | undefined} built on the first connection */
    this.secureContext = trust?.secureContext
    this.rejectUnauthorized = trust?.rejectUnauthorized ?? true
    /** @type {Buffer | undefined} the latest session ticket of this destination: the next connection resumes it */
    this.session = undefined
    this.onTls = onTls
    /** Connections that resumed a session (no certificate sent, no key exchange of their own). */
    this.resumed = 0
    /** @type {(session: Buffer) => void} */
    this.keepSession = (session) => { this.session = session }
  }

  /**
   * Opens a TLS connection; reads go to `onread` as for a net.Socket (one shared buffer).
   * @param {{ host: string, port: number, localAddress?: string, localPort?: number }} to
   * @param {{ buffer: Buffer, callback: (bytes: number, buf: Buffer) => boolean | void }} onread
   * @returns {import('node:tls').TLSSocket} connecting; 'secureConnect' when the session is ready
   */
  connect (to, onread) {
    const tls = tlsModule()
    this.secureContext ??= tls.createSecureContext()
    // tls.connect's `onread` is documented (the read buffer of the socket it makes) but missing from @types/node.
    const readInto = /** @type {object} */ ({ onread })
    const socket = tls.connect({
      ...to,
      ...readInto,
      secureContext: this.secureContext,
      rejectUnauthorized: this.rejectUnauthorized,
      servername: this.servername,
      session: this.session
    })
    socket.on('session', this.keepSession)
    let tcpAt = -1
    socket.once('connect', () => { tcpAt = performance.now() })
    socket.once('secureConnect', () => {
      if (socket.isSessionReused()) this.resumed++
      if (tcpAt >= 0) this.onTls?.(performance.now() - tcpAt)
    })
    return socket
  }
}
