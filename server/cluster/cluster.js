/**
 * `ioswarm serve --cluster K`: K worker processes behind one port, the socket.io way. The
 * primary listens and hands each connection to a worker with @socket.io/sticky (a polling
 * session's requests all reach the worker that holds the session, by its `sid`); the
 * adapter (cluster, redis or redis-streams) carries each io.emit to every worker's clients.
 * The primary also answers GET /stats for the worker that got the request: it asks every
 * worker over IPC and adds them up.
 */
import { perTransport } from '../../lib/transports.js'
import cluster from 'node:cluster'
import http from 'node:http'
import { randomBytes } from 'node:crypto'
import { fileURLToPath } from 'node:url'
import { CODES, IoswarmError } from '../../lib/errors.js'
import { createProcessSampler } from '../../lib/measure/process-sampler.js'
import { createIpc } from './cluster-ipc.js'
import { listen } from '../broadcast/http-endpoints.js'
import { totalStats } from './cluster-stats.js'
import { connectServerReporter } from '../reporting.js'

const WORKER_FILE = fileURLToPath(new URL('./worker.js', import.meta.url))
const START_TIMEOUT_MS = 20000
const WORKER_STATS_TIMEOUT_MS = 2000
const STOP_TIMEOUT_MS = 5000

/**
 * @typedef {import('node:cluster').Worker} Worker
 * @typedef {{ index: number, pid: number }} WorkerInfo
 * @typedef {import('../../lib/schema/result-schema.js').ServerSample} ServerSample
 */

/**
 * Forks the workers, waits until each one is ready, then listens.
 * @param {import('../server-options.js').ServeOptions} options
 * @param {{ onWorkerExit?: (info: WorkerInfo & { code: number | null, signal: string | null, left: number }) => void, onError?: (error: Error) => void }} [hooks]
 */
export async function startCluster (options, hooks = {}) {
  if (!cluster.isPrimary) throw new IoswarmError(CODES.SERVER, 'startCluster must run in the cluster primary')
  const token = options.token || randomBytes(18).toString('base64url')
  const { setupMaster: setupSticky } = await import('@socket.io/sticky')
  const httpServer = http.createServer()
  // Round-robin, not sticky's default least-connection: that counts a worker's sessions
  // only once the worker has reported them, so a burst of connects all goes to one worker.
  setupSticky(httpServer, { loadBalancingMethod: 'round-robin' })
  if (options.adapter === 'cluster') (await import('@socket.io/cluster-adapter')).setupPrimary()
  // Advanced serialization keeps sticky's Buffers intact over IPC (its README says so).
  cluster.setupPrimary({ exec: WORKER_FILE, args: [], serialization: 'advanced' })

  const sampler = createProcessSampler()
  const reporter = options.runId && options.redisUrl
    ? await connectServerReporter({ redisUrl: options.redisUrl, runId: options.runId, serverId: `${options.serverId}-primary`, onError: hooks.onError })
    : undefined
  const reportTimer = reporter && setInterval(() => reporter.report({ ...sampler.sample(), connected: 0, byTransport: perTransport(() => 0) }), 1000)
  const statsSampler = createProcessSampler()
  /** @type {Map<Worker, { index: number, connected: Record<string, number> }>} */
  const workers = new Map()
  const ipc = createIpc(workers, () => collectStats())
  let stopping = false

  const collectStats = async () => totalStats(statsSampler.sample(), await ipc.queryAll(WORKER_STATS_TIMEOUT_MS), options.adapter)
  const onExit = (/** @type {Worker} */ worker, /** @type {number | null} */ code, /** @type {string | null} */ signal) => {
    const info = workers.get(worker)
    if (!info) return
    workers.delete(worker)
    if (!stopping) hooks.onWorkerExit?.({ index: info.index, pid: worker.process.pid ?? 0, code, signal, left: workers.size })
  }
  cluster.on('message', ipc.onMessage)
  cluster.on('exit', onExit)

  const stop = async () => {
    stopping = true
    clearInterval(reportTimer)
    ipc.stop()
    await stopWorkers([...workers.keys()])
    cluster.off('message', ipc.onMessage)
    cluster.off('exit', onExit)
    httpServer.close()
    sampler.stop()
    statsSampler.stop()
    await reporter?.close()
  }

  try {
    await Promise.all(Array.from({ length: options.cluster }, (_, i) => forkWorker(options, token, i + 1, workers)))
    await listen(httpServer, options.port, options.host)
  } catch (error) {
    await stop()
    throw error
  }
  const { port } = /** @type {import('node:net').AddressInfo} */ (httpServer.address())
  const host = options.host && options.host !== '0.0.0.0' && options.host !== '::' ? options.host : 'localhost'
  return {
    port,
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    token,
    tokenGenerated: !options.token,
    /** @returns {WorkerInfo[]} */
    workers: () => [...workers.entries()].map(([w, info]) => ({ index: info.index, pid: w.process.pid ?? 0 })).sort((a, b) => a.index - b.index),
    stats: collectStats,
    close: stop
  }
}

/**
 * Forks worker `index`, sends it its options, resolves once it is ready.
 * @param {import('../server-options.js').ServeOptions} options
 * @param {string} token
 * @param {number} index
 * @param {Map<Worker, { index: number, connected: Record<string, number> }>} workers
 */
function forkWorker (options, token, index, workers) {
  const worker = cluster.fork()
  workers.set(worker, { index, connected: {} })
  return new Promise((resolve, reject) => {
    const fail = (/** @type {string} */ why) => {
      clearTimeout(timer)
      worker.off('message', onMessage)
      worker.off('exit', onExit)
      reject(new IoswarmError(CODES.SERVER, `cluster worker ${index} ${why}`))
    }
    const onMessage = (/** @type {any} */ message) => {
      if (message?.type === 'ioswarm:hello') {
        worker.send({ type: 'ioswarm:config', index, config: { ...options, token } })
      } else if (message?.type === 'ioswarm:ready') {
        clearTimeout(timer)
        worker.off('message', onMessage)
        worker.off('exit', onExit)
        resolve(undefined)
      } else if (message?.type === 'ioswarm:failed') {
        fail(`failed to start: ${message.message}`)
      }
    }
    const onExit = (/** @type {number | null} */ code) => fail(`exited at start (code ${code})`)
    const timer = setTimeout(() => fail(`was not ready within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS)
    worker.on('message', onMessage)
    worker.on('exit', onExit)
  })
}

/**
 * Asks each worker to close, and kills the ones still there after STOP_TIMEOUT_MS.
 * @param {Worker[]} list
 */
async function stopWorkers (list) {
  await Promise.all(list.map((worker) => new Promise((resolve) => {
    if (worker.isDead()) return resolve(undefined)
    const timer = setTimeout(() => worker.process.kill('SIGKILL'), STOP_TIMEOUT_MS)
    worker.once('exit', () => { clearTimeout(timer); resolve(undefined) })
    if (worker.isConnected()) worker.send({ type: 'ioswarm:close' })
    else worker.process.kill('SIGTERM')
  })))
}
