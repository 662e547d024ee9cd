/**
 * The report page's own script. It runs in the browser, not in Node: htmlPage() puts its
 * source into the page with Function.prototype.toString, so it may use only its arguments
 * and browser globals, never anything imported here.
 */

/**
 * Draws every chart from the page's JSON block, and records for tests how many data points
 * each chart drew (`window.__ioswarmCharts`) next to how many its data had
 * (`window.__ioswarmChartPoints`): a chart with data that drew nothing is a failure, a chart
 * without data shows its note instead.
 * @param {any} Chart the Chart.js global
 * @param {any} doc the page's document
 * @param {any} win the page's window
 */
export function drawCharts (Chart, doc, win) {
  /** @type {{ name: string, config: any, points: number }[]} */
  const specs = JSON.parse(doc.getElementById('ioswarm-charts').textContent)
  /** @type {Record<string, any>} */
  const targets = {}
  for (const el of doc.querySelectorAll('[data-chart]')) targets[el.getAttribute('data-chart')] = el
  /** @type {Record<string, number>} */
  const drawn = {}
  /** @type {Record<string, number>} */
  const expected = {}
  Chart.defaults.animation = false
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif'
  Chart.defaults.color = '#4a5561'
  for (const spec of specs) {
    expected[spec.name] = spec.points
    drawn[spec.name] = 0
    const canvas = targets[spec.name]
    if (!spec.config || !canvas || canvas.tagName !== 'CANVAS') continue
    try {
      const config = spec.config
      // Shading datasets (rounds, saturation) explain the chart in the legend but carry no reading.
      config.options.plugins.tooltip = Object.assign({}, config.options.plugins.tooltip, {
        filter: (/** @type {any} */ item) => !item.dataset.ioswarmBand && !item.dataset.ioswarmNoLegend
      })
      // A band's lower edge is drawn only so the upper edge can fill down to it.
      config.options.plugins.legend.labels.filter = (/** @type {any} */ item, /** @type {any} */ data) => !data.datasets[item.datasetIndex].ioswarmNoLegend
      const chart = new Chart(canvas, config)
      drawn[spec.name] = countDrawn(chart)
    } catch (error) {
      console.error(`ioswarm: chart ${spec.name} failed: ${error instanceof Error ? error.message : error}`)
    }
  }
  win.__ioswarmCharts = drawn
  win.__ioswarmChartPoints = expected

  /**
   * Elements Chart.js placed at a finite position, shading left out: what the chart shows.
   * @param {any} chart
   */
  function countDrawn (chart) {
    let points = 0
    chart.data.datasets.forEach((/** @type {any} */ dataset, /** @type {number} */ i) => {
      if (dataset.ioswarmBand) return
      for (const el of chart.getDatasetMeta(i).data) {
        if (!el.skip && Number.isFinite(el.x) && Number.isFinite(el.y)) points++
      }
    })
    return points
  }
}
