/**
 * Prometheus exposition text, read back in tests: each series with its labels, and sums.
 */

/**
 * Prometheus text → value of each series by `name{labels}` (labels as printed).
 * @param {string} text
 */
export function parseExposition (text) {
  /** @type {{ name: string, labels: Record<string, string>, value: number }[]} */
  const series = []
  for (const line of text.split('\n')) {
    const m = /^([a-z_:][a-z0-9_:]*)(?:\{(.*)\})? (\S+)$/i.exec(line)
    if (!m) continue
    const labels = Object.fromEntries([...(m[2] ?? '').matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/gi)].map((l) => [l[1], l[2]]))
    series.push({ name: m[1], labels, value: Number(m[3]) })
  }
  /** @param {string} name @param {Record<string, string>} [where] */
  const sum = (name, where = {}) => {
    const matching = series.filter((s) => s.name === name && Object.entries(where).every(([k, v]) => s.labels[k] === v))
    return matching.reduce((a, s) => a + s.value, 0)
  }
  return { series, sum }
}
