/**
 * A child process for the /proc probe tests: holds one loopback TCP connection to itself
 * (two ESTABLISHED sockets), says "ready" on stdout, and exits when its stdin closes.
 */
import net from 'node:net'

const server = net.createServer(() => {})
server.listen(0, '127.0.0.1', () => {
  const { port } = /** @type {net.AddressInfo} */ (server.address())
  net.connect(port, '127.0.0.1', () => process.stdout.write('ready\n'))
})
process.stdin.on('end', () => process.exit(0))
process.stdin.resume()
