/**
 * A run's --publish requests in one line, apart from what their messages did once delivered.
 */
import { formatMs, plain } from '../../lib/text/format.js'

/**
 * `publish POST http://…: 50 requests, 50 × 201; request p50 1.2ms p99 4.1ms max 9ms (apart from delivery)`.
 * @param {import('../../lib/schema/result-schema.js').PublishSummary} summary
 */
export function formatPublishLine (summary) {
  const statuses = Object.entries(summary.byStatus).map(([status, n]) => `${n} × ${status}`).join(', ') || 'no answer'
  const { p50, p99, max } = summary.requestMs
  return `publish ${plain(summary.request)}: ${summary.requests} requests, ${statuses}${summary.unanswered ? `, ${summary.unanswered} unanswered` : ''}; ` +
    `request p50 ${formatMs(p50)} p99 ${formatMs(p99)} max ${formatMs(max)} (apart from delivery)`
}
