/**
 * The clients' HTTP logins (--login) for people: one line in simulate's and run's summaries.
 */
import { formatCounts, formatMs } from '../../lib/text/format.js'

/**
 * @param {import('../../lib/schema/result-schema.js').LoginReport | undefined} report
 * @returns {string[]} no line without --login
 */
export function formatLogins (report) {
  if (!report) return []
  const failed = Object.values(report.failed).reduce((a, b) => a + b, 0)
  return [
    `logins (${report.request}): ${report.ok}/${report.attempts} ok, time p50 ${formatMs(report.time.count ? report.time.p50 : null)}, ` +
      `p99 ${formatMs(report.time.count ? report.time.p99 : null)}, max ${formatMs(report.time.count ? report.time.max : null)}; ` +
      `failed ${failed === 0 ? 'none' : formatCounts(report.failed)}; again after a refusal (HTTP 401/403 or a refused CONNECT) ${report.relogins}`
  ]
}
