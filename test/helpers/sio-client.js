/**
 * The real socket.io-client as a test's own client (not the simulator): connect or be
 * refused, join rooms, and record what each socket received. Every socket is closed in
 * t.after; nothing reconnects.
 */
import { Manager, io } from 'socket.io-client'
import { waitFor } from './wait.js'

/**
 * @typedef {import('socket.io-client').Socket} Socket
 * @typedef {Partial<import('socket.io-client').ManagerOptions & import('socket.io-client').SocketOptions>} ClientOptions
 */

/**
 * @param {import('node:test').TestContext} t
 * @param {string} url with the namespace as its path, as socket.io-client takes it
 * @param {ClientOptions} [options]
 */
function open (t, url, options = {}) {
  const socket = io(url, { transports: ['websocket'], reconnection: false, forceNew: true, ...options })
  t.after(() => socket.close())
  return socket
}

/**
 * Connects; rejects with the server's refusal.
 * @param {import('node:test').TestContext} t
 * @param {string} url
 * @param {ClientOptions} [options]
 * @returns {Promise<Socket>}
 */
export function connect (t, url, options) {
  const socket = open(t, url, options)
  return new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(socket))
    socket.once('connect_error', (error) => reject(new Error(`refused: ${error.message}`)))
  })
}

/**
 * Connects expecting a refusal; resolves with its message (rejects if it connects).
 * @param {import('node:test').TestContext} t
 * @param {string} url
 * @param {ClientOptions} [options]
 * @returns {Promise<string>}
 */
export function refusal (t, url, options) {
  const socket = open(t, url, options)
  return new Promise((resolve, reject) => {
    socket.once('connect', () => reject(new Error('connected, but a refusal was expected')))
    socket.once('connect_error', (error) => resolve(error.message))
  })
}

/**
 * Sockets of several namespaces over one connection (socket.io-client's Manager).
 * @param {import('node:test').TestContext} t
 * @param {string} url the server, without a namespace
 * @param {string[]} namespaces
 * @param {ClientOptions} [options]
 * @returns {Promise<Socket[]>}
 */
export async function connectMultiplexed (t, url, namespaces, options = {}) {
  const manager = new Manager(url, { transports: ['websocket'], reconnection: false, ...options })
  const sockets = namespaces.map((name) => manager.socket(name, { auth: options.auth ?? {} }))
  t.after(() => { for (const s of sockets) s.close() })
  await Promise.all(sockets.map((socket, i) => new Promise((resolve, reject) => {
    socket.once('connect', () => resolve(undefined))
    socket.once('connect_error', (error) => reject(new Error(`refused on ${namespaces[i]}: ${error.message}`)))
    socket.connect()
  })))
  return sockets
}

/**
 * Records every payload of `event` a socket receives.
 * @param {Socket} socket
 * @param {string} event
 * @returns {any[]}
 */
export function record (socket, event) {
  /** @type {any[]} */
  const got = []
  socket.on(event, (payload) => got.push(payload))
  return got
}

/**
 * Waits until each list has at least its count of entries.
 * @param {[any[], number][]} lists
 * @param {string} what
 */
export function waitForCounts (lists, what) {
  return waitFor(() => lists.every(([list, n]) => list.length >= n), {
    timeoutMs: 10000,
    message: () => `${what} (have ${lists.map(([list, n]) => `${list.length}/${n}`).join(', ')})`
  })
}

/**
 * Joins a room and resolves with the server's ack.
 * @param {Socket} socket
 * @param {unknown} payload `{ room }` or a name
 */
export function join (socket, payload) {
  return socket.timeout(5000).emitWithAck('join', payload)
}
