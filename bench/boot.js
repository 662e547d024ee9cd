/**
 * What kind of boot a bench ran on. The same VM type has come up fast or slow from one boot to
 * the next (a bare `node -e 0` from 56 to 147 ms), and the scale and emit records compare runs
 * across boots by these two facts; a bench takes them before it starts its own processes.
 */
import { spawnSync } from 'node:child_process'
import os from 'node:os'

/** @returns {{ cpuModel: string | null, nodeStartMs: number }} the CPU's model and the median of three bare `node -e 0`, in ms */
export function bootFacts () {
  const times = [0, 1, 2].map(() => {
    const t = performance.now()
    spawnSync(process.execPath, ['-e', '0'])
    return performance.now() - t
  }).sort((a, b) => a - b)
  // Node reads the model from /proc/cpuinfo, as `grep "model name"` shows it.
  return { cpuModel: os.cpus()[0]?.model ?? null, nodeStartMs: Math.round(times[1]) }
}
