/**
 * Deliveries by namespace and room (`--namespace`, `--rooms`/`--room`): counts and the
 * relative delay histogram per (namespace, room), summed over simulators. They carry no
 * simulator label: simulators × rooms × 17 histogram series would be what the label bounds
 * exist to prevent. Both labels are bounded (the first values seen, then "other"); a message
 * without a room counts under room "" and one on the main namespace under "/".
 */
import { metricMakers } from '../makers.js'
import { createHdrHistogramMetric } from './hdr-histogram-metric.js'
import { createLabelBound } from '../labels.js'

/** Namespaces and rooms with their own series. */
const MAX_NAMESPACE_LABELS = 20
const MAX_ROOM_LABELS = 50

/**
 * @param {import('prom-client').Registry} registry
 * @param {{ maxNamespaces?: number, maxRooms?: number }} [bounds]
 */
export function createRoomMetrics (registry, { maxNamespaces = MAX_NAMESPACE_LABELS, maxRooms = MAX_ROOM_LABELS } = {}) {
  const namespaces = createLabelBound(maxNamespaces)
  const rooms = createLabelBound(maxRooms)
  const labelNames = ['namespace', 'room']
  const { counter } = metricMakers(registry)
  const c = (/** @type {string} */ name, /** @type {string} */ help) => counter(name, help, labelNames)
  const m = {
    messages: c('ioswarm_room_messages_total', 'Message reports (one per message per simulator), by namespace and target room'),
    received: c('ioswarm_room_received_total', 'Deliveries by namespace and target room'),
    expected: c('ioswarm_room_expected_total', 'Deliveries expected by namespace and target room (the room\'s connected clients)'),
    missing: c('ioswarm_room_missing_total', 'Deliveries missing by namespace and target room'),
    misdelivered: c('ioswarm_room_misdelivered_total', 'Copies to clients outside the message\'s target room, by namespace and target room'),
    relative: createHdrHistogramMetric({
      registry,
      name: 'ioswarm_room_relative_delay_seconds',
      help: 'Delay of each client after the first receipt in its simulator, by namespace and target room',
      labelNames
    })
  }
  return {
    /**
     * A closed message report (with its namespace and room, when it has them).
     * @param {import('../../../lib/schema/result-schema.js').MessageReport} report
     */
    observeMessage (report) {
      const labels = { namespace: namespaces.value(report.namespace ?? '/'), room: report.room ? rooms.value(report.room) : '' }
      m.messages.inc(labels)
      m.received.inc(labels, report.received)
      m.expected.inc(labels, report.expected)
      m.missing.inc(labels, report.missing)
      m.misdelivered.inc(labels, report.misdelivered ?? 0)
      m.relative.addEncoded(labels, report.relative.histogram)
    },
    /** The label bounds' use. */
    labelStats: () => ({ namespaces: namespaces.stats(), rooms: rooms.stats() })
  }
}
