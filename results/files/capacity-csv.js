/**
 * steps.csv of a capacity search: one row per step, in the order they ran, with the figures
 * that decided its verdict (RFC 4180 and spreadsheet-safe, as results/files/csv.js).
 */
import { csvField } from './csv.js'

const STEP_HEADER = [
  'step', 'phase', 'clients', 'connected', 'connect_ms', 'messages', 'expected', 'missing', 'unreported',
  'relative_p50_ms', 'relative_p99_ms', 'relative_max_ms', 'absolute_p50_ms', 'absolute_p99_ms',
  'floor_busy_max', 'saturated_seconds', 'simulator_elu_max', 'simulator_cpu_pct_max', 'server_cpu_pct_max',
  'fds_per_simulator', 'fd_limit',
  // A step without rounds (judged on its windows); empty otherwise.
  'emit_rate', 'emits_per_second', 'ack_p99_ms', 'windows',
  'slo_failed', 'verdict', 'limited_by', 'why'
]

/**
 * @param {import('../../lib/schema/capacity-schema.js').CapacityResult} result
 * @returns {string}
 */
export function capacityStepsCsv (result) {
  const rows = result.steps.map((s) => [
    s.step, s.phase, s.clients, s.connected, s.connectMs, s.messages, s.expected, s.missing, s.unreported,
    s.relative.p50, s.relative.p99, s.relative.max, s.absolute?.p50, s.absolute?.p99,
    s.floor?.busyMax, s.simulators.reduce((sum, x) => sum + x.saturatedSeconds, 0),
    Math.max(0, ...s.simulators.map((x) => x.eluMax)), Math.max(0, ...s.simulators.map((x) => x.cpuPctMax)), s.server?.cpuPctMax,
    s.limits.fdsPerSimulator, s.limits.fdLimit,
    s.windowed?.emitRate, s.windowed?.emitsPerSecond, s.windowed?.ack?.p99, s.windowed?.windows,
    s.slo.filter((v) => !v.ok).map((v) => v.expression).join(' '), s.verdict, s.limitedBy, s.why
  ])
  return [STEP_HEADER, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n') + '\r\n'
}
