/**
 * Building blocks for Chart.js configs as plain JSON (no functions: the config travels to the
 * page inside a JSON block), shared by the distribution and comparison charts.
 */

/** Tableau 10: distinct, colour-blind friendly enough, readable on white. */
const PALETTE = ['#4e79a7', '#f28e2b', '#e15759', '#76b7b2', '#59a14f', '#edc948', '#b07aa1', '#ff9da7', '#9c755f', '#bab0ac']
/** Colours per delay statistic, the same in every chart. */
export const STAT_COLORS = { p50: '#4e79a7', p90: '#59a14f', p99: '#f28e2b', max: '#e15759' }
/** A legend of more entries than this is hidden: the lines stay readable, the legend would not. */
const LEGEND_MAX = 12

/**
 * @param {number} i
 */
export function color (i) {
  return PALETTE[i % PALETTE.length]
}

/**
 * A colour with transparency, from `#rrggbb`.
 * @param {string} hex
 * @param {number} alpha 0..1
 */
export function tint (hex, alpha) {
  const n = Number.parseInt(hex.slice(1), 16)
  return `rgba(${n >> 16}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`
}

/**
 * An axis with a title.
 * @param {string} title
 * @param {Record<string, unknown>} [extra]
 */
export function axis (title, extra = {}) {
  return { title: { display: true, text: title }, grid: { color: '#eef1f4' }, ...extra }
}

/** A linear x axis of seconds since the distribution started. */
export function secondsAxis () {
  return axis('seconds since the distribution started', { type: 'linear' })
}

/** The hidden 0..1 axis that shading datasets (rounds, saturation) are drawn against. */
export function bandAxis () {
  return { type: 'linear', axis: 'y', display: false, min: 0, max: 1 }
}

/**
 * A Chart.js config with the options every report chart shares.
 * @param {string} type
 * @param {{ labels?: string[], datasets: Record<string, any>[] }} data
 * @param {Record<string, any>} scales
 */
export function chartConfig (type, data, scales) {
  return {
    type,
    data,
    options: {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      interaction: { mode: 'nearest', axis: 'x', intersect: false },
      plugins: {
        legend: { display: data.datasets.filter((d) => !d.ioswarmNoLegend).length <= LEGEND_MAX, position: 'bottom', labels: { boxWidth: 12, boxHeight: 12 } }
      },
      scales
    }
  }
}

/**
 * A line dataset.
 * @param {string} label
 * @param {unknown[]} data numbers (category axis) or { x, y } points (linear axis)
 * @param {string} lineColor
 * @param {Record<string, unknown>} [extra]
 */
export function line (label, data, lineColor, extra = {}) {
  const drawn = { borderWidth: 1.5, pointRadius: 0, pointHoverRadius: 3, tension: 0 }
  return { type: 'line', label, data, borderColor: lineColor, backgroundColor: lineColor, ...drawn, ...extra }
}

/**
 * A shading dataset: filled where y is 1, on the hidden band axis, behind the lines.
 * @param {string} label
 * @param {{ x: number, y: number }[] | number[]} data points, or a value per label (a category axis)
 * @param {string} fillColor
 */
export function band (label, data, fillColor) {
  const drawn = { stepped: 'middle', fill: 'origin', borderWidth: 0, pointRadius: 0, pointHoverRadius: 0 }
  return { type: 'line', label, data, yAxisID: 'band', ...drawn, backgroundColor: fillColor, borderColor: fillColor, order: 10, ioswarmBand: true }
}

/**
 * Readings a config carries: non-null values of the datasets that are not shading. The page
 * must draw as many; a chart without any shows its note instead of an empty canvas.
 * @param {{ data: { datasets: Record<string, any>[] } }} config
 */
export function countPoints (config) {
  const isValue = (/** @type {any} */ v) => v !== null && (typeof v === 'number' || (typeof v === 'object' && v.y !== null))
  return config.data.datasets.reduce((sum, d) => sum + (d.ioswarmBand ? 0 : d.data.filter(isValue).length), 0)
}

/**
 * A chart spec: the config, or the note that replaces it when `config` is null.
 * @param {string} name
 * @param {string} title
 * @param {string} caption
 * @param {ReturnType<typeof chartConfig> | null} config
 * @param {string} note why there is no data
 * @returns {import('../html.js').ChartSpec}
 */
export function spec (name, title, caption, config, note) {
  const points = config ? countPoints(config) : 0
  return { name, title, caption, config: points > 0 ? config : null, points, note: points > 0 ? null : note }
}

/**
 * Seconds since `startMs`, to 0.1 s.
 * @param {number} t epoch ms
 * @param {number} startMs
 */
export function secondsSince (t, startMs) {
  return Math.round((t - startMs) / 100) / 10
}
