/**
 * A worker of `ioswarm serve --cluster K` (the file node:cluster runs in each worker). It
 * waits for its options from the primary over IPC (the token stays out of argv and the
 * environment), starts the reference server behind @socket.io/sticky, then answers the
 * primary: stats on request, its connection count every second, close on request.
 *
 * Messages (all with a `type` starting with `ioswarm:`, beside sticky's and the adapter's):
 * worker → primary first: hello (listening), then primary → worker: config, stats-query {reqId}, stats-result {reqId, stats}, total {namespaces}, close
 * worker → primary: ready, failed {message}, stats-answer {reqId, sample}, stats-request {reqId}, count {namespaces} (sockets per app namespace),
 *   sid {reqId} (answered by sid-ack {reqId}: see registerSessionsFirst)
 */
import cluster from 'node:cluster'
import { randomBytes } from 'node:crypto'
import { startServer } from '../index.js'
import { connectServerReporter } from '../reporting.js'

const COUNT_EVERY_MS = 1000
const STATS_TIMEOUT_MS = 5000
const SESSION_ACK_TIMEOUT_MS = 2000

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
 * @param {import('../server-options.js').ServeOptions & { token: string }} config
 * @param {number} index 1-based worker number
 */
async function runWorker (config, index) {
  const reporter = config.runId && config.redisUrl
    ? await connectServerReporter({ redisUrl: config.redisUrl, runId: config.runId, serverId: `${config.serverId}-w${index}` })
    : undefined
  /** @type {Map<number, (stats: unknown) => void>} */
  const waiting = new Map()
  let nextReqId = 1
  /** @type {Record<string, number>} sockets per app namespace: the cluster's, and ours as last reported */
  let clusterConnected = {}
  /** @type {Record<string, number>} */
  let reportedConnected = {}
  const server = await startServer({ ...config, port: 0, sticky: true }, {
    onSample: reporter?.report,
    // A broadcast to a namespace reaches this worker's clients now plus the others' at their
    // last count. A room's members are counted on this worker only: the others' are not
    // known here, so a room broadcast's recipients are a lower bound in a cluster.
    recipients: (targets) => targets.reduce((total, t) => total + (t.room !== null
      ? t.local
      : Math.max(t.local, (clusterConnected[t.namespace] ?? 0) - (reportedConnected[t.namespace] ?? 0) + t.local)), 0),
    stats: () => new Promise((resolve) => {
      const reqId = nextReqId++
      const timer = setTimeout(() => {
        waiting.delete(reqId)
        resolve({ error: `the cluster primary did not answer within ${STATS_TIMEOUT_MS} ms` })
      }, STATS_TIMEOUT_MS)
      waiting.set(reqId, (stats) => { clearTimeout(timer); resolve(stats) })
      process.send?.({ type: 'ioswarm:stats-request', reqId })
    })
  })
  registerSessionsFirst(server.io)
  const countTimer = setInterval(() => {
    reportedConnected = Object.fromEntries(server.namespaces.map((name) => [name, server.io.of(name).sockets.size]))
    process.send?.({ type: 'ioswarm:count', namespaces: reportedConnected })
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
    else if (message?.type === 'ioswarm:total') clusterConnected = message.namespaces
    else if (message?.type === 'ioswarm:close') close()
    else if (message?.type === 'ioswarm:sid-ack') sessionAcks.get(message.reqId)?.()
  })
  // The primary stops its workers itself; a terminal's Ctrl-C reaches the whole process group,
  // and a primary that died leaves no one to do it.
  process.on('SIGINT', () => {})
  process.on('SIGTERM', close)
  process.on('disconnect', close)
  process.send?.({ type: 'ioswarm:ready' })
}

/** @type {Map<number, () => void>} */
const sessionAcks = new Map()
let nextSessionReqId = 1

/**
 * Closes a race in @socket.io/sticky. The worker tells the primary which worker holds a new
 * session once the session exists, while the handshake answer is already on its way to the
 * client; on a loaded machine the client's next request (carrying the sid) can reach the
 * primary first, go to another worker by round-robin, and fail with HTTP 400 "Session ID
 * unknown" (seen in about 1 test run in 10 with 8 polling clients). Here the worker makes
 * the session id itself, tells the primary with sticky's own message, and answers the
 * handshake only once the primary has confirmed: IPC messages are handled in order, so
 * by then the primary knows the session. Costs one IPC round trip per handshake.
 * @param {import('socket.io').Server} io
 */
function registerSessionsFirst (io) {
  io.engine.generateId = () => new Promise((resolve) => {
    // Engine.IO's own ids: 15 random bytes, URL-safe base64 (20 characters, what sticky matches).
    const id = randomBytes(15).toString('base64url')
    const reqId = nextSessionReqId++
    const done = () => {
      clearTimeout(timer)
      sessionAcks.delete(reqId)
      resolve(id)
    }
    const timer = setTimeout(done, SESSION_ACK_TIMEOUT_MS)
    sessionAcks.set(reqId, done)
    process.send?.({ type: 'sticky:connection', data: id })
    process.send?.({ type: 'ioswarm:sid', reqId })
  })
}
