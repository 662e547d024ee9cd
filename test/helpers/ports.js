/**
 * Ports for tests. A server a test starts itself (node's http, socket.io, `ioswarm serve
 * --port 0 --metrics-port 0`) listens on port 0 and reads the port it got: nothing to choose,
 * no race. Two needs are left, each with its helper here:
 *
 * - a port nobody listens on (a server that is not there): `closedPort()`, a port a server
 *   was given by the system a moment ago and has closed. The system could hand it out again,
 *   but it gives ports for listen(0) from its whole ephemeral range at a random offset, and no
 *   test binds a port of its own choosing any more (the two helpers below included: they take
 *   theirs the same way and check they got it), so another test's server lands on it about
 *   once in tens of thousands of starts;
 * - a program that must be told its port on its command line and cannot listen on 0 and say
 *   which port it got (redis-server, whose `--port 0` means no TCP at all; nginx, haproxy,
 *   Prometheus, pm2's app): `onClosedPort(start)` starts it on a closed port and, when another
 *   process took that port in between (the program failed with "address in use"), starts it
 *   again on another one. `listensOn(pid, port)` tells a program that bound the port from one
 *   that answers on a port someone else holds.
 */
import net from 'node:net'
import { readFileSync, readdirSync, readlinkSync } from 'node:fs'

/**
 * A loopback port nobody listens on: a connect to it is refused.
 * @returns {Promise<number>}
 */
export async function closedPort () {
  const server = net.createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  const { port } = /** @type {net.AddressInfo} */ (server.address())
  await new Promise((resolve) => server.close(() => resolve(undefined)))
  return port
}

/** Times a program is started again on a new port after another process took the last one. */
const ATTEMPTS = 5

/** How a program (or its helper) says its port was taken. */
const IN_USE = /EADDRINUSE|address already in use|cannot bind socket|port .* is taken/i

/**
 * Starts a program on a port nobody listened on a moment ago; if it fails because another
 * process took that port meanwhile (its error says "address in use"), starts it again on
 * another. Any other failure is passed on.
 * @template T
 * @param {(port: number) => Promise<T>} start starts the program on `port`; rejects with the
 *   program's own words when it cannot (so an "address in use" is seen here)
 * @returns {Promise<T>}
 */
export async function onClosedPort (start) {
  for (let attempt = 1; ; attempt++) {
    const port = await closedPort()
    try {
      return await start(port)
    } catch (error) {
      if (attempt >= ATTEMPTS || !IN_USE.test(String(/** @type {Error} */ (error)?.message))) throw error
    }
  }
}

/**
 * True when process `pid` holds a socket listening on TCP `port` (Linux: its file
 * descriptors against /proc/net/tcp and tcp6), so a program that answers on the port is known
 * to be the one the test started, not another that took the port first.
 * @param {number} pid
 * @param {number} port
 */
export function listensOn (pid, port) {
  /** @type {Set<string>} */
  const inodes = new Set()
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const inode = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))?.[1]
        if (inode) inodes.add(inode)
      } catch {} // closed meanwhile
    }
  } catch {
    return false // gone
  }
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0')
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = ''
    try {
      text = readFileSync(table, 'utf8')
    } catch {
      continue
    }
    for (const line of text.split('\n').slice(1)) {
      // sl local_address rem_address st ... inode: state 0A is LISTEN
      const cols = line.trim().split(/\s+/)
      if (cols[3] === '0A' && cols[1]?.endsWith(`:${hexPort}`) && inodes.has(cols[9])) return true
    }
  }
  return false
}
