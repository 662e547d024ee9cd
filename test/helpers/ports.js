/**
 * Ports for tests: a loopback port that was free a moment ago and is closed now.
 */
import net from 'node:net'

/** @returns {Promise<number>} */
export async function freePort () {
  const server = net.createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)))
  const { port } = /** @type {net.AddressInfo} */ (server.address())
  await new Promise((resolve) => server.close(() => resolve(undefined)))
  return port
}
