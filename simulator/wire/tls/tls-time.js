/**
 * The TLS handshake time of a connection (--ca, --insecure, any https:// or wss:// URL): from
 * the TCP connection being up to the TLS session being ready ('secureConnect'), the part of a
 * client's connect time that TLS costs. Engines wrap the function that opens their
 * connections (ws's createConnection, undici's connector, http.Agent's createConnection) so
 * every TLS connection of a swarm is timed once, where it is made; one closure per
 * connection, none per frame.
 */
import net from 'node:net'
import tls from 'node:tls'
import { performance } from 'node:perf_hooks'

/**
 * Times the handshake of a socket made by tls.connect() with a host and port, still connecting.
 * @param {import('node:net').Socket} socket
 * @param {(tlsMs: number) => void} report
 */
function timeTls (socket, report) {
  let tcpAt = -1
  socket.once('connect', () => { tcpAt = performance.now() })
  socket.once('secureConnect', () => { if (tcpAt >= 0) report(performance.now() - tcpAt) })
}

/**
 * ws's own TLS connect (its `createConnection` for wss://), timed.
 * @param {(tlsMs: number) => void} report
 * @returns {(options: any) => import('node:net').Socket}
 */
export function timedTlsConnect (report) {
  return (options) => {
    // As ws's tlsConnect: no path for a TCP connection, SNI unless the host is an address.
    options.path = undefined
    if (!options.servername && options.servername !== '') options.servername = net.isIP(options.host) ? '' : options.host
    const socket = tls.connect(options)
    timeTls(socket, report)
    return socket
  }
}

/**
 * An undici or http.Agent-style connector (options, callback) → socket, with its TLS sockets timed.
 * @param {(options: any, callback: any) => any} connect
 * @param {(tlsMs: number) => void} report
 * @returns {(options: any, callback: any) => any}
 */
export function timedConnector (connect, report) {
  return function (/** @type {any} */ options, /** @type {any} */ callback) {
    // @ts-ignore: http.Agent's createConnection is called as a method
    const socket = connect.call(this, options, callback)
    if (socket instanceof tls.TLSSocket) timeTls(socket, report)
    return socket
  }
}
