/**
 * A worker of `ioswarm serve --cluster K` (the file node:cluster runs in each worker). It
 * waits for its options from the primary over IPC (the token stays out of argv and the
 * environment), starts the reference server behind @socket.io/sticky, then answers the
 * primary: stats on request, its connection count every second, close on request.
 *
 * Messages (all with a `type` starting with `ioswarm:`, beside sticky's and the adapter's):
 * worker → primary first: hello (listening), then primary → worker: config, stats-query {reqId}, stats-result {reqId, stats}, total {connected}, close
 * worker → primary: ready, failed {message}, stats-answer {reqId, sample}, stats-request {reqId}, count {connected}
 */
import cluster from 'node:cluster'
import { startServer } from './index.js'
import { connectServerReporter } from './reporting.js'

const COUNT_EVERY_MS = 1000
const STATS_TIMEOUT_MS = 5000

if (cluster.isWorker) {
  // Not `once`: adapter messages relayed by the primary may come first.
  process.on('message', function onConfig (/** @type {any} */ message) {
    if (message?.type !== 'ioswarm:config') return
    process.off('message', onConfig)
    runWorker(message.config, message.index).catch((error) => {
      process.send?.({ type: 'ioswarm:failed', message: /** @type {Error} */ (error).message }, () => process.exit(1))
    })
  })
  // IPC messages that arrive before a listener exists are lost: ask for the options now.
  process.send?.({ type: 'ioswarm:hello' })
}

/**
 * @param {import('./options.js').ServeOptions & { token: string }} config
 * @param {number} index 1-based worker number
 */
async function runWorker (config, index) {
  const reporter = config.runId && config.redisUrl
    ? await connectServerReporter({ redisUrl: config.redisUrl, runId: config.runId, serverId: `${config.serverId}-w${index}` })
    : undefined
  /** @type {Map<number, (stats: unknown) => void>} */
  const waiting = new Map()
  let nextReqId = 1
  let clusterConnected = 0
  let reportedConnected = 0
  const server = await startServer({ ...config, port: 0, sticky: true }, {
    onSample: reporter?.report,
    // A broadcast reaches this worker's clients now plus the others' at their last count.
    recipients: (local) => Math.max(local, clusterConnected - reportedConnected + local),
    stats: () => new Promise((resolve) => {
      const reqId = nextReqId++
      const timer = setTimeout(() => { waiting.delete(reqId); resolve({ error: `the cluster primary did not answer within ${STATS_TIMEOUT_MS} ms` }) }, STATS_TIMEOUT_MS)
      waiting.set(reqId, (stats) => { clearTimeout(timer); resolve(stats) })
      process.send?.({ type: 'ioswarm:stats-request', reqId })
    })
  })
  const countTimer = setInterval(() => {
    reportedConnected = server.io.of('/').sockets.size
    process.send?.({ type: 'ioswarm:count', connected: reportedConnected })
  }, COUNT_EVERY_MS)

  let closing = false
  const close = async () => {
    if (closing) return
    closing = true
    clearInterval(countTimer)
    await server.close().catch(() => {})
    await reporter?.close()
    process.exit(0)
  }
  process.on('message', (/** @type {any} */ message) => {
    if (message?.type === 'ioswarm:stats-query') process.send?.({ type: 'ioswarm:stats-answer', reqId: message.reqId, sample: server.stats() })
    else if (message?.type === 'ioswarm:stats-result') waiting.get(message.reqId)?.(message.stats)
    else if (message?.type === 'ioswarm:total') clusterConnected = message.connected
    else if (message?.type === 'ioswarm:close') close()
  })
  // The primary stops its workers itself; a terminal's Ctrl-C reaches the whole process group,
  // and a primary that died leaves no one to do it.
  process.on('SIGINT', () => {})
  process.on('SIGTERM', close)
  process.on('disconnect', close)
  process.send?.({ type: 'ioswarm:ready' })
}
