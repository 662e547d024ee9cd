/**
 * The cluster primary's side of its IPC with the workers (protocol in worker.js): stats
 * queries to every worker, the connection totals sent back every second, and the answer
 * to a worker's GET /stats.
 */

/**
 * @typedef {import('node:cluster').Worker} Worker
 * @typedef {import('../../lib/schema/result-schema.js').ServerSample} ServerSample
 */

/**
 * Starts the totals timer; `onMessage` goes on cluster's 'message' event.
 * @param {Map<Worker, { index: number, connected: Record<string, number> }>} workers connected: sockets per app namespace, as the worker last counted
 * @param {() => Promise<unknown>} collectStats
 */
export function createIpc (workers, collectStats) {
  /** @type {Map<number, { answers: Map<Worker, ServerSample>, done: () => void }>} */
  const queries = new Map()
  let nextReqId = 1
  const totalTimer = setInterval(() => {
    /** @type {Record<string, number>} */
    const namespaces = {}
    for (const info of workers.values()) {
      for (const [name, n] of Object.entries(info.connected)) namespaces[name] = (namespaces[name] ?? 0) + n
    }
    for (const worker of workers.keys()) if (worker.isConnected()) worker.send({ type: 'ioswarm:total', namespaces })
  }, 1000)
  return {
    /** @type {(worker: Worker, message: any) => void} */
    onMessage (worker, message) {
      switch (message?.type) {
        case 'ioswarm:count': {
          const info = workers.get(worker)
          if (info && message.namespaces !== null && typeof message.namespaces === 'object') info.connected = message.namespaces
          break
        }
        case 'ioswarm:stats-answer': {
          const query = queries.get(message.reqId)
          query?.answers.set(worker, message.sample)
          if (query && query.answers.size >= workers.size) query.done()
          break
        }
        case 'ioswarm:sid':
          // Sticky's own handler has already taken the sticky:connection sent just before.
          if (worker.isConnected()) worker.send({ type: 'ioswarm:sid-ack', reqId: message.reqId })
          break
        case 'ioswarm:stats-request':
          collectStats().then((stats) => {
            if (worker.isConnected()) worker.send({ type: 'ioswarm:stats-result', reqId: message.reqId, stats })
          })
          break
      }
    },
    /**
     * Every worker's stats; a worker that does not answer in time is listed with an error.
     * @param {number} timeoutMs
     */
    async queryAll (timeoutMs) {
      const reqId = nextReqId++
      /** @type {Map<Worker, ServerSample>} */
      const answers = new Map()
      await new Promise((resolve) => {
        const timer = setTimeout(resolve, timeoutMs)
        queries.set(reqId, { answers, done: () => { clearTimeout(timer); resolve(undefined) } })
        for (const worker of workers.keys()) if (worker.isConnected()) worker.send({ type: 'ioswarm:stats-query', reqId })
        if (workers.size === 0) resolve(undefined)
      })
      queries.delete(reqId)
      return [...workers.entries()].map(([worker, info]) => ({ index: info.index, pid: worker.process.pid ?? 0, sample: answers.get(worker) ?? null }))
    },
    stop () {
      clearInterval(totalTimer)
    }
  }
}
