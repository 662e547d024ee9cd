/**
 * Bounded label values. Every distinct label value is a series in Prometheus, so a value
 * that comes from the run (a simulator id, a reason text, a namespace or a room) is
 * admitted only while fewer than `max` distinct values have been seen; later ones are
 * folded into OTHER_LABEL. The first values seen keep their series for the whole run (a
 * "top N by count" would have to move counts between series after the fact, which a
 * counter scraped already cannot undo), so a run with 10,000 rooms makes at most max + 1.
 */

/** The label value past a bound. */
export const OTHER_LABEL = 'other'

/**
 * @param {number} max most distinct values besides OTHER_LABEL
 */
export function createLabelBound (max) {
  if (!Number.isInteger(max) || max < 1) throw new RangeError(`a label bound must be an integer >= 1, got ${max}`)
  /** @type {Set<string>} */
  const admitted = new Set()
  let folded = 0
  return {
    /**
     * The label value to use for `value`.
     * @param {unknown} value
     */
    value (value) {
      const text = String(value ?? '')
      if (admitted.has(text)) return text
      if (admitted.size < max && text !== OTHER_LABEL) {
        admitted.add(text)
        return text
      }
      folded++
      return OTHER_LABEL
    },
    /** How many distinct values have their own series, and how many lookups were folded. */
    stats () {
      return { admitted: admitted.size, folded }
    }
  }
}

/**
 * Sets a gauge with a bounded label so that the values folded into OTHER_LABEL combine
 * (summed: clients, simulators up; the largest: loop delay, CPU, memory) instead of the last
 * one written hiding the others: 300 simulators past a bound of 200 still add up.
 * @param {import('prom-client').Gauge<string>} gauge
 * @param {string} labelName the bounded label, e.g. 'simulator'
 * @param {ReturnType<typeof createLabelBound>} bound
 * @param {'sum' | 'max'} combine
 * @returns {(raw: string, labels: Record<string, string>, value: number) => void} raw: the value before bounding; labels: the others
 */
export function boundedGaugeSetter (gauge, labelName, bound, combine) {
  /** @type {Map<string, Map<string, number>>} the other labels → folded raw value → its value */
  const folded = new Map()
  return (raw, labels, value) => {
    const label = bound.value(raw)
    if (label !== OTHER_LABEL) return gauge.set({ [labelName]: label, ...labels }, value)
    const key = JSON.stringify(labels)
    let values = folded.get(key)
    if (!values) folded.set(key, (values = new Map()))
    values.set(raw, value)
    let total = combine === 'sum' ? 0 : -Infinity
    for (const v of values.values()) total = combine === 'sum' ? total + v : Math.max(total, v)
    gauge.set({ [labelName]: OTHER_LABEL, ...labels }, total)
  }
}
