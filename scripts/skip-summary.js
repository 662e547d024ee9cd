/**
 * A node:test reporter that prints, after everything else, one line per skipped or todo test
 * with its reason, so a skip is seen at the end of `npm test`, not only in the middle of the
 * output, and the run's totals as one plain line (`summary: N passed, N failed, N skipped`).
 * Used beside the TAP reporter by scripts/run-tests.js.
 * @param {AsyncIterable<{ type: string, data: { name: string, file?: string, skip?: string | boolean, todo?: string | boolean, message?: string } }>} source
 */
export default async function * skipSummary (source) {
  /** @type {string[]} */
  const lines = []
  /** @type {Record<string, number>} */
  const totals = {}
  for await (const event of source) {
    // The runner's own totals come last as diagnostics: `pass 411`, `fail 0`, `skipped 2`.
    const total = event.type === 'test:diagnostic' ? /^(pass|fail|skipped) (\d+)$/.exec(event.data.message ?? '') : null
    if (total) totals[total[1]] = Number(total[2])
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue
    const { name, file, skip, todo } = event.data
    const why = skip ?? todo
    if (why === undefined || why === false) continue
    const where = file ? ` (${file.replace(`${process.cwd()}/`, '')})` : ''
    lines.push(`${skip !== undefined && skip !== false ? 'SKIPPED' : 'TODO'}: ${name}${where}${typeof why === 'string' ? `: ${why}` : ''}`)
  }
  const skipped = lines.length === 0
    ? '\n# no test was skipped\n'
    : `\n# ${lines.length} test${lines.length === 1 ? '' : 's'} skipped or todo:\n${lines.map((l) => `# ${l}`).join('\n')}\n`
  yield `${skipped}summary: ${totals.pass ?? 0} passed, ${totals.fail ?? 0} failed, ${totals.skipped ?? 0} skipped\n`
}
