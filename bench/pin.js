/**
 * CPU pinning for the benches' --pin (bench/emits.js, bench/emit-floor.js): the server on one
 * core and the clients on the other, so that a client's top rate is not the server's share of
 * its core.
 */
import { spawnSync } from 'node:child_process'

/**
 * Pins a process and all its threads to one CPU (taskset -a -p -c), or fails loudly.
 * @param {number} pid
 * @param {number} cpu
 */
export function pin (pid, cpu) {
  const done = spawnSync('taskset', ['-a', '-p', '-c', String(cpu), String(pid)], { encoding: 'utf8' })
  if (done.status !== 0) throw new Error(`--pin: taskset could not pin pid ${pid} to CPU ${cpu}: ${done.error?.message ?? done.stderr.trim()}`)
}
