/**
 * The entry of a reference server (socket.io, or the plain WebSocket one when its options say
 * protocol 'websocket') started as a child process by `ioswarm run` (see runner/processes.js):
 * its options come over IPC (the token stays out of argv and the environment), and it
 * answers once listening. SIGTERM or SIGINT closes it.
 *
 *   parent → child  { type: 'ioswarm:serve', options }     normalised ServeOptions with a token
 *   child → parent  { type: 'ioswarm:listening', url, port } or { type: 'ioswarm:error', message }
 */
import { EXIT } from '../lib/errors.js'
import { startServer } from './index.js'
import { startWebSocketServer } from './websocket/ws-server.js'

if (typeof process.send !== 'function') {
  process.stderr.write('server/child.js is started by ioswarm over IPC (child_process.fork), not by hand: use `ioswarm serve`\n')
  process.exit(EXIT.USAGE)
}

process.on('message', async function onServe (/** @type {any} */ message) {
  if (message?.type !== 'ioswarm:serve') return
  process.off('message', onServe)
  try {
    const server = await (message.options.protocol === 'websocket' ? startWebSocketServer : startServer)(message.options)
    let closing = false
    const close = () => {
      if (closing) return
      closing = true
      server.close().finally(() => { if (process.connected) process.disconnect() })
    }
    process.on('SIGTERM', close)
    process.on('SIGINT', close)
    // The runner is gone (killed): close rather than serve on orphaned.
    process.on('disconnect', close)
    process.send?.({ type: 'ioswarm:listening', url: server.url, port: server.port })
  } catch (error) {
    process.send?.({ type: 'ioswarm:error', message: /** @type {Error} */ (error).message }, () => process.exit(EXIT.RUNTIME))
  }
})
