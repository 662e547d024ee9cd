/**
 * Reading the benches' own flags: parseArgs gives strings, and a bench given a bad count
 * should stop with the flag's name before it starts anything.
 */

/**
 * A whole number from a flag, within bounds, or an error naming the flag and what it got.
 * @param {string} flag e.g. '--clients'
 * @param {string | undefined} text
 * @param {{ min?: number, max?: number }} [bounds] both inclusive
 */
export function wholeNumber (flag, text, { min = 1, max = Infinity } = {}) {
  const n = Number(text)
  if (!Number.isInteger(n) || n < min || n > max) {
    const range = max === Infinity ? `at least ${min}` : `from ${min} to ${max}`
    throw new Error(`${flag} must be a whole number ${range}, got ${JSON.stringify(text)}`)
  }
  return n
}
