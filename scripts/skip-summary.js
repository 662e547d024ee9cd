/**
 * A node:test reporter that prints, after everything else, one line per skipped or todo test
 * with its reason, so a skip is seen at the end of `npm test`, not only in the middle of the
 * output, and the run's totals as one plain line (`summary: N passed, N failed, N skipped`).
 * Each failed test gets a line too, with the first lines of its error: CI shows only the end of a
 * long run's output, and a failure's own block may be far above it.
 * Used beside the TAP reporter by scripts/run-tests.js.
 * @param {AsyncIterable<{ type: string, data: TestEventData }>} source
 */
export default async function * skipSummary (source) {
  /** @type {string[]} */
  const lines = []
  /** @type {string[]} */
  const failures = []
  /** @type {Record<string, number>} */
  const totals = {}
  for await (const event of source) {
    // The runner's own totals come last as diagnostics: `pass 411`, `fail 0`, `skipped 2`.
    const total = event.type === 'test:diagnostic' ? /^(pass|fail|skipped) (\d+)$/.exec(event.data.message ?? '') : null
    if (total) totals[total[1]] = Number(total[2])
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue
    const { name, file, skip, todo } = event.data
    const why = skip ?? todo
    const where = file ? ` (${file.replace(`${process.cwd()}/`, '')})` : ''
    if (event.type === 'test:fail' && (why === undefined || why === false)) {
      const error = event.data.details?.error
      // A suite or a test whose subtests failed says only how many: its subtests have lines of their own.
      if (error?.failureType !== 'subtestsFailed') failures.push(`FAILED: ${name}${where}: ${firstLines(error?.cause?.message ?? error?.message)}`)
      continue
    }
    if (why === undefined || why === false) continue
    lines.push(`${skip !== undefined && skip !== false ? 'SKIPPED' : 'TODO'}: ${name}${where}${typeof why === 'string' ? `: ${why}` : ''}`)
  }
  const skipped = lines.length === 0
    ? '\n# no test was skipped\n'
    : `\n# ${lines.length} test${lines.length === 1 ? '' : 's'} skipped or todo:\n${lines.map((l) => `# ${l}`).join('\n')}\n`
  const failed = failures.map((l) => `# ${l}\n`).join('')
  yield `${skipped}${failed === '' ? '' : `\n${failed}`}summary: ${totals.pass ?? 0} passed, ${totals.fail ?? 0} failed, ${totals.skipped ?? 0} skipped\n`
}

/**
 * @typedef {{ name: string, file?: string, skip?: string | boolean, todo?: string | boolean, message?: string,
 *   details?: { error?: { failureType?: string, message?: string, cause?: { message?: string } } } }} TestEventData
 */

/**
 * An error message on one line: its first three non-empty lines joined, at most 300 characters.
 * @param {string | undefined} message
 */
function firstLines (message) {
  const text = (message ?? 'no message').split('\n').map((l) => l.trim()).filter(Boolean).slice(0, 3).join(' | ')
  return text.length > 300 ? `${text.slice(0, 299)}…` : text
}
