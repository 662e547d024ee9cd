/**
 * `ioswarm serve`: the reference server, until Ctrl-C / SIGTERM.
 */
import { once } from 'node:events'
import { stopOnSignals } from '../lib/cli-run.js'
import { parseDurationMs } from '../lib/options.js'
import { DEFAULT_EVENT } from '../lib/protocol.js'
import { startServer } from './index.js'

/** @type {import('yargs').CommandModule<{}, any>} */
export const serveCommand = {
  command: 'serve',
  describe: 'Run the reference socket.io server under test (relays broadcasts to all clients)',
  builder: (y) => y
    .usage('$0 serve [options]\n\nA socket.io 4 server (WebSocket and long-polling) that relays each broadcast to every client with io.emit. Trigger broadcasts with `ioswarm broadcast`, or POST /broadcast with "Authorization: Bearer <token>". GET /stats returns connections by transport, CPU, RSS and event-loop delay.')
    .option('port', { alias: 'p', type: 'string', default: '3000', describe: 'Port to listen on (0 = a free port, printed)' })
    .option('host', { type: 'string', describe: 'Address to bind (default: all interfaces)' })
    .option('token', { type: 'string', describe: 'Broadcast token (or IOSWARM_TOKEN); generated and printed once when missing' })
    .option('path', { type: 'string', default: '/socket.io/', describe: 'Engine.IO path' })
    .option('event', { type: 'string', default: DEFAULT_EVENT, describe: 'Event name broadcasts are emitted on' })
    .option('ping-interval', { type: 'string', default: '25s', describe: 'Engine.IO pingInterval (simulators ramp over it)' })
    .option('ping-timeout', { type: 'string', default: '20s', describe: 'Engine.IO pingTimeout' })
    .option('json', { type: 'boolean', default: false, describe: 'Print {"url", "port"} as one JSON line on stdout once listening' }),
  handler: async (argv) => {
    const server = await startServer({
      port: argv.port,
      host: argv.host,
      token: argv.token,
      path: argv.path,
      event: argv.event,
      pingIntervalMs: parseDurationMs(argv.pingInterval, '--ping-interval'),
      pingTimeoutMs: parseDurationMs(argv.pingTimeout, '--ping-timeout')
    })
    const tokenNote = server.tokenGenerated
      ? `\n  broadcast token (generated; pass --token or IOSWARM_TOKEN to choose it): ${server.token}`
      : '\n  broadcast token: as given'
    process.stderr.write(`ioswarm serve: listening on ${server.url} (port ${server.port})${tokenNote}\n  trigger: ioswarm broadcast --url ${server.url} --token <token>\n`)
    if (argv.json) process.stdout.write(`${JSON.stringify({ url: server.url, port: server.port })}\n`)
    const stop = stopOnSignals('ioswarm serve')
    await once(stop.signal, 'abort')
    stop.dispose()
    await server.close()
  }
}
