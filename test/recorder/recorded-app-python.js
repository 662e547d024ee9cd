/**
 * The recorder's chat app (recorded-app.js) on python-socketio 5 and aiohttp
 * (test/peers/python/recorded_app.py, Debian python3-socketio + python3-aiohttp): the same page
 * on socket.io-client 4's browser bundle, login, /chat namespace, room, acked emits, binary
 * avatar and typing notice, and the same ledger, which the test reads from the app's GET /ledger.
 * The app runs under /usr/bin/python3 on loopback and is stopped by its pid when the test ends;
 * without python-socketio the test skips loudly (fails under CI=true).
 */
import { fileURLToPath } from 'node:url'
import { PEERS_DIR, PYTHON, pythonSocketIo, startPeer } from '../helpers/peers.js'
import { PAGE } from './recorded-app.js'

const BUNDLE = fileURLToPath(new URL('../../node_modules/socket.io-client/dist/socket.io.min.js', import.meta.url))

/**
 * Starts the python app on port 0, or returns null after skipping the test when python-socketio is missing.
 * @param {import('node:test').TestContext} t
 * @param {{ transports?: string[] }} [options] the page's transports
 * @returns {Promise<{ url: string, pid: number, entries: () => Promise<import('./recorded-app.js').LedgerEntry[]> } | null>}
 */
export async function startRecordedAppPython (t, { transports = ['polling', 'websocket'] } = {}) {
  if (!pythonSocketIo(t)) return null
  const page = PAGE.replace('window.TRANSPORTS', JSON.stringify(transports))
  const peer = await startPeer(t, PYTHON, [`${PEERS_DIR}python/recorded_app.py`], { PAGE: page, BUNDLE })
  return {
    url: peer.url,
    pid: peer.pid,
    entries: async () => {
      const res = await fetch(`${peer.url}/ledger`)
      if (!res.ok) throw new Error(`GET /ledger: HTTP ${res.status}`)
      return /** @type {any} */ (await res.json())
    }
  }
}
