/**
 * Preloaded into Artillery by bench/artillery-case.js (NODE_OPTIONS="--expose-gc --require
 * this"), in its main thread and in each of its worker threads (where the virtual users
 * live): on SIGUSR2 every thread runs two full collections, so Artillery's RSS is read after
 * GC, as bench/engines.js reads its own clients'. It touches nothing else in Artillery.
 */
'use strict'
const { BroadcastChannel, isMainThread } = require('node:worker_threads')

const gc = /** @type {() => void} */ (globalThis.gc)
const channel = new BroadcastChannel('ioswarm-bench-gc')
// Not a reason to stay alive: Artillery decides when its threads end.
channel.unref()
const collect = () => {
  gc()
  gc()
}
channel.onmessage = collect
// A channel does not deliver to its own sender: the main thread collects itself, then asks the others.
if (isMainThread) {
  process.on('SIGUSR2', () => {
    collect()
    channel.postMessage('gc')
  })
}
