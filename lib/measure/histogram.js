/**
 * HDR histograms of delays: recorded in integer microseconds, summarised in milliseconds,
 * encoded in the library's portable compressed form so they can be merged across
 * simulators and hosts (true percentiles, not averages of percentiles).
 */
import { createRequire } from 'node:module'
import { onFirstUse } from '../lazy-require.js'

// The parts of hdr-histogram-js that ioswarm uses, not its index: the index also loads the log
// reader and writer, whose number formatter loads ICU locale data, ~7 MiB of RSS in every
// simulator (a process loads only what it uses). Histograms are built from the plain-JS factory, not
// HistogramBuilder, which loads the WebAssembly build too (a 39 KB base64 module, pako,
// @assemblyscript/loader) for `useWebAssembly`, never asked for here. The encoding (which
// loads pako) comes on the first encode or decode: a simulator child reaches it when its first
// message closes, not before its clients connect. The package has no "exports" map; its dist/
// is its API.
const require = createRequire(import.meta.url)
const { constructorFromBucketSize } = /** @type {typeof import('hdr-histogram-js/dist/JsHistogramFactory.js')} */ (
  require('hdr-histogram-js/dist/JsHistogramFactory.js'))
const encoding = /** @type {() => typeof import('hdr-histogram-js/dist/encoding.js')} */ (onFirstUse('hdr-histogram-js/dist/encoding.js'))
const Int32Histogram = constructorFromBucketSize(32)
const ulp = /** @type {typeof import('hdr-histogram-js/dist/ulp.js').default} */ (require('hdr-histogram-js/dist/ulp.js').default)

/** @typedef {import('hdr-histogram-js').Histogram} Histogram */

/**
 * Summary of a delay distribution, in milliseconds.
 * @typedef {object} DelaySummary
 * @property {number} count
 * @property {number} mean
 * @property {number} min
 * @property {number} max
 * @property {number} p50
 * @property {number} p90
 * @property {number} p99
 */

// Typed as a concrete class for `extends`: the factory's typings give the abstract base.
/** @typedef {{ countsArrayIndex (value: number): number, autoResize: boolean }} Recording */
const RecordingBase = /** @type {new (lowest: number, highest: number, digits: number) => Recording} */ (/** @type {unknown} */ (Int32Histogram))

/**
 * The library's 32-bit histogram with the index of a recorded value found by bit counting for
 * values below 2^31 µs (35 minutes): the library's own way (Math.log2 and two Math.pow, which
 * V8 runs as calls into C) cost ≈ 0.1 µs a record, and an acked emit is recorded twice (the run's
 * figure and its second's). The same index for every value (tested against the library's);
 * larger, negative or fractional values take the library's path.
 */
class DelayHistogram extends RecordingBase {
  /**
   * @param {number} value
   * @returns {number}
   */
  countsArrayIndex (value) {
    if (!(value >= 0 && value < 2147483648) || value !== Math.floor(value)) return super.countsArrayIndex(value)
    // The library's typings do not declare the fields its methods use.
    const self = /** @type {{ subBucketHalfCountMagnitude: number, unitMagnitude: number, subBucketHalfCount: number }} */ (/** @type {unknown} */ (this))
    const bucketIndex = Math.max(31 - Math.clz32(value) - self.subBucketHalfCountMagnitude - self.unitMagnitude, 0)
    const subBucketIndex = value >>> (bucketIndex + self.unitMagnitude)
    return (bucketIndex + 1) * (1 << self.subBucketHalfCountMagnitude) + subBucketIndex - self.subBucketHalfCount
  }
}

/** A histogram for delays from 1 µs to 1 h at 3 significant digits (grows past that). */
export function createHistogram () {
  // What HistogramBuilder's build() does for these settings (bitBucketSize 32, no WebAssembly).
  const histogram = new DelayHistogram(1, 60_000_000, 3)
  histogram.autoResize = true
  return /** @type {Histogram} */ (/** @type {unknown} */ (histogram))
}

/**
 * Records a delay given in milliseconds (negative values are recorded as 0).
 * @param {Histogram} histogram
 * @param {number} delayMs
 */
export function recordMs (histogram, delayMs) {
  histogram.recordValue(delayMs > 0 ? Math.round(delayMs * 1000) : 0)
}

const round3 = (/** @type {number} */ v) => Math.round(v * 1000) / 1000

/**
 * @param {Histogram} histogram
 * @returns {DelaySummary}
 */
export function summarize (histogram) {
  const count = histogram.totalCount
  if (count === 0) return { count: 0, mean: 0, min: 0, max: 0, p50: 0, p90: 0, p99: 0 }
  const ms = (/** @type {number} */ us) => round3(us / 1000)
  const [min, p50, p90, p99, mean] = oneWalk(histogram)
  return { count, mean: ms(mean), min: ms(min), max: ms(histogram.maxValue), p50: ms(p50), p90: ms(p90), p99: ms(p99) }
}

/** The percentiles summarize reports, in walking order; the first is the minimum (percentile 0). */
const SUMMARY_PERCENTILES = [0, 50, 90, 99]

/**
 * The summary's percentiles and mean in one walk over the counts, each the same number the
 * library gives (getValueAtPercentile: the first index whose running count reaches the
 * percentile's count, rounded up as it rounds; mean: each recorded index's median-equivalent
 * value times its count, summed in index order). The library walks the counts once per
 * percentile and once more, through an iterator, for the mean: 0.6-4.9 ms for a 10-value
 * histogram, paid by every closed message report, window and node row.
 * @param {Histogram} histogram
 * @returns {number[]} [p0, p50, p90, p99, mean] in value units (µs)
 */
function oneWalk (histogram) {
  const h = /** @type {any} */ (histogram)
  const total = histogram.totalCount
  const targets = SUMMARY_PERCENTILES.map((p) => countAtPercentile(p, total))
  const found = [0, 0, 0, 0]
  let next = 0
  let seen = 0
  let sum = 0
  for (let i = 0; i < h.countsArrayLength && seen < total; i++) {
    const n = h.getCountAtIndex(i)
    if (n === 0) continue
    seen += n
    const value = h.valueFromIndex(i)
    sum += h.medianEquivalentValue(h.highestEquivalentValue(value)) * n
    while (next < targets.length && seen >= targets[next]) {
      found[next] = next === 0 ? h.lowestEquivalentValue(value) : h.highestEquivalentValue(value)
      next++
    }
  }
  return [...found, sum / total]
}

/**
 * How many recorded values a percentile covers, as getValueAtPercentile counts them (rounded up,
 * less one ulp of the float product, at least 1).
 * @param {number} percentile
 * @param {number} total
 */
function countAtPercentile (percentile, total) {
  const fp = (Math.min(percentile, 100) / 100) * total
  return Math.max(Math.ceil(fp - ulp(fp)), 1)
}

/**
 * Portable encoding (HdrHistogram compressed base64, readable by every HdrHistogram port).
 * @param {Histogram} histogram
 */
export function encode (histogram) {
  return encoding().encodeIntoCompressedBase64(histogram)
}

/**
 * @param {string} encoded
 * @returns {Histogram}
 */
export function decode (encoded) {
  return encoding().decodeFromCompressedBase64(encoded, 32, false)
}

/**
 * Merges encoded histograms into one (empty strings and nulls are skipped).
 * @param {Iterable<string | null | undefined>} encodedList
 * @returns {Histogram}
 */
export function mergeEncoded (encodedList) {
  const merged = createHistogram()
  for (const encoded of encodedList) {
    if (encoded) merged.add(decode(encoded))
  }
  return merged
}

/**
 * The distribution as a percentile curve for charts: [{ percentile, ms }] from 0 to 100.
 * @param {Histogram} histogram
 * @returns {{ percentile: number, ms: number }[]}
 */
export function percentileCurve (histogram) {
  if (histogram.totalCount === 0) return []
  const points = [0, 1, 5, 10, 20, 30, 40, 50, 60, 70, 75, 80, 85, 90, 95, 97.5, 99, 99.5, 99.9, 100]
  return points.map((percentile) => ({ percentile, ms: round3(histogram.getValueAtPercentile(percentile) / 1000) }))
}
