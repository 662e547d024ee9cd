#!/usr/bin/env node
/**
 * Delivery breakdown benchmark: the cost of a distribution's deliveries per (namespace, room,
 * event) at the end of a run (results/merge/delivery-rows.js, what the collector's getDeliveries
 * computes), over `--reports` stored message reports (one per simulator and message) spread
 * over `--rooms` rooms, each with a histogram of `--clients` delays. Prints one JSON line: the
 * milliseconds of the breakdown, µs per report, the rows it produced, and the heap it took.
 *
 *   node bench/deliveries.js [--reports 20000] [--rooms 10000] [--clients 50]
 */
import { parseArgs } from 'node:util'
import { performance } from 'node:perf_hooks'
import { createHistogram, encode, recordMs, summarize } from '../lib/measure/histogram.js'
import { hostFacts } from '../lib/host.js'
import { deliveryBreakdown } from '../results/merge/delivery-rows.js'

const { values } = parseArgs({
  options: {
    reports: { type: 'string', default: '20000' },
    rooms: { type: 'string', default: '10000' },
    clients: { type: 'string', default: '50' }
  }
})
const reports = Number(values.reports)
const rooms = Number(values.rooms)
const clients = Number(values.clients)

// A few distinct histograms, shared by the reports: building 100,000s of them is not what is measured.
const shapes = Array.from({ length: 16 }, (_, k) => {
  const h = createHistogram()
  for (let c = 0; c < clients; c++) recordMs(h, (k + 1) * c * 0.13)
  return { ...summarize(h), histogram: encode(h) }
})
/** @type {import('../results/collector/types.js').MessageEntry[]} */
const entries = Array.from({ length: reports }, (_, n) => {
  const relative = shapes[n % shapes.length]
  return {
    simulator: `sim-${n % 10}`,
    report: {
      key: `chat:m${Math.floor(n / 10)}`,
      id: `m${Math.floor(n / 10)}`,
      event: 'chat',
      namespace: '/',
      room: `room-${Math.floor(n / 10) % rooms}`,
      round: null,
      seq: null,
      sentAt: 1,
      firstAt: 1,
      received: clients,
      expected: clients,
      missing: 0,
      duplicates: 0,
      misdelivered: 0,
      late: 0,
      relative,
      absolute: { ...relative, negative: 0 }
    }
  }
})
const heapBefore = process.memoryUsage().heapUsed
const start = performance.now()
const breakdown = deliveryBreakdown(entries, {})
const ms = performance.now() - start
process.stdout.write(`${JSON.stringify({
  bench: 'deliveries',
  reports,
  rooms,
  clientsPerReport: clients,
  ms: Math.round(ms),
  usPerReport: Math.round(ms * 1000 / reports),
  rows: breakdown.rows.length,
  heapDeltaMB: Math.round((process.memoryUsage().heapUsed - heapBefore) / 1e5) / 10,
  host: hostFacts()
})}\n`)
