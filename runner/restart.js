/**
 * `run --restart-server-at 30s`: the reference server restarted mid-run on its port, as a
 * deploy (SIGTERM: it closes its connections) or a crash (SIGKILL) would. The rounds go on;
 * every simulator measures the reconnect storm.
 */

/**
 * @typedef {import('../lib/child.js').Child & { url: string }} ServerChild
 */

/**
 * @param {object} spec
 * @param {number[]} spec.atMs times after `startedMono` (performance.now() ms)
 * @param {number} spec.startedMono
 * @param {'SIGTERM' | 'SIGKILL'} spec.signal
 * @param {{ current: ServerChild }} spec.server the running server, replaced on each restart
 * @param {() => Promise<ServerChild>} spec.start starts a new one on the same port
 * @param {(line: string) => void} spec.log
 * @param {(mark: { type: 'mark', kind: 'restart', at: number, label: string }) => void} [spec.mark] each restart as the live stream's event (a line on its charts)
 * @returns {{ stop: () => Promise<void>, restarts: { atMs: number, downMs: number | null, error: string | null }[] }}
 */
export function scheduleServerRestarts ({ atMs, startedMono, signal, server, start, log, mark }) {
  /** @type {{ atMs: number, downMs: number | null, error: string | null }[]} */
  const restarts = []
  /** @type {Promise<void>} */
  let running = Promise.resolve()
  let stopped = false
  const timers = atMs.map((at) => setTimeout(() => {
    running = running.then(() => restart(at))
  }, Math.max(0, startedMono + at - performance.now())))

  /** @param {number} at */
  async function restart (at) {
    if (stopped) return
    const old = server.current
    const downAt = performance.now()
    const downAtWall = Date.now()
    old.process.kill(signal)
    await old.exited
    try {
      server.current = await start()
      const downMs = Math.round(performance.now() - downAt)
      restarts.push({ atMs: at, downMs, error: null })
      log(`reference server restarted at ${Math.round(at / 100) / 10} s (${signal}): down ${downMs} ms, now pid ${server.current.pid}`)
      mark?.({ type: 'mark', kind: 'restart', at: downAtWall, label: `server restart (${signal}, down ${downMs} ms)` })
    } catch (error) {
      restarts.push({ atMs: at, downMs: null, error: /** @type {Error} */ (error).message })
      log(`reference server could not be restarted at ${Math.round(at / 100) / 10} s: ${/** @type {Error} */ (error).message}`)
      mark?.({ type: 'mark', kind: 'restart', at: downAtWall, label: `server down (${signal}): not restarted` })
    }
  }

  return {
    restarts,
    async stop () {
      stopped = true
      for (const t of timers) clearTimeout(t)
      await running
    }
  }
}
