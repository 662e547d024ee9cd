// @ts-nocheck -- browser code (the page's module script): the project's type check has no DOM types.
/* global document, window, location, EventSource, fetch, requestAnimationFrame */
/**
 * The dashboard page's script: reads the stream (Server-Sent Events: the run so far, then each
 * second), keeps a bounded number of seconds, and draws the charts with the report's own chart
 * code (charts-live.js, served as it is), the headline figures as text, the run's log, and the
 * actions (with the token of the page's URL; without it the buttons stay off).
 */
import { breakdownKeys, liveCharts, thinSeconds, thresholdsNow } from './charts-live.js'

/** Seconds kept on the page: past this the older half is thinned, so hours cost no more. */
const MAX_POINTS = 900
/** Log lines kept on the page. */
const MAX_LOG = 300

const Chart = window.Chart
const token = new URLSearchParams(location.search).get('token')
let seconds = []
const marks = []
const shape = []
const windows = []
const charts = {}
let startMs = null
let thresholds = []
let pending = false
const $ = (id) => document.getElementById(id)
window.__ioswarmLive = { seconds: 0, events: 0, points: {}, ended: false }

if (Chart) {
  Chart.defaults.animation = false
  Chart.defaults.font.family = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif'
  Chart.defaults.color = '#4a5561'
}
setUpControls()
const source = new EventSource('/events')
source.onopen = () => { $('live-state').textContent = 'live' }
source.onerror = () => { if (!window.__ioswarmLive.ended) $('live-state').textContent = 'reconnecting…' }
source.onmessage = (m) => onEvent(JSON.parse(m.data))

function onEvent (event) {
  window.__ioswarmLive.events++
  if (event.type === 'hello') return onHello(event)
  if (event.type === 'second') {
    // A page reconnecting gets the history again: a second already held is not added twice.
    if (seconds.length && event.t <= seconds[seconds.length - 1].t) return
    startMs ??= event.t
    seconds.push(event)
    seconds = thinSeconds(seconds, MAX_POINTS)
    schedule()
    return
  }
  if (event.type === 'action') {
    marks.push({ at: event.at, label: `${event.action}${event.value !== undefined ? ` ${event.value}` : ''}` })
    addLog(event.at, `action: ${event.action} ${event.value ?? ''} by ${event.by}${event.ok === false ? ` (refused: ${event.message})` : ''}`)
    schedule()
    return
  }
  if (event.type === 'log') return addLog(event.at, event.text)
  if (event.type === 'mark') {
    // The run's shape: a phase, a capacity step and its verdict, a server restart.
    shape.push(event)
    schedule()
    return
  }
  if (event.type === 'window') {
    // Its line came as a log event too: the window only feeds its chart.
    windows.push(event)
    if (windows.length > MAX_POINTS) windows.shift()
    schedule()
    return
  }
  if (event.type === 'end') return onEnd(event)
}

function onHello (event) {
  startMs = event.startedAt ?? startMs
  thresholds = Array.isArray(event.thresholds) ? event.thresholds : []
  const facts = [event.command, event.runId, event.target].filter(Boolean).join(' · ')
  $('run-facts').textContent = facts
  if (event.name) $('title').textContent = `ioswarm ${event.command ?? ''}: ${event.name}`
}

function onEnd (event) {
  window.__ioswarmLive.ended = true
  $('live-state').textContent = 'the run is over'
  const box = $('ended')
  box.hidden = false
  box.textContent = ''
  const say = (text) => box.append(document.createTextNode(text))
  say('The run is over. ')
  if (event.report) {
    const a = document.createElement('a')
    a.href = '/report'
    a.textContent = 'Open the report'
    box.append(a)
    say(` (${event.report}, while this run's server is up). `)
  }
  if (event.result) say(`result.json: ${event.result}`)
  for (const b of document.querySelectorAll('[data-action]')) b.disabled = true
  source.close()
}

function addLog (at, text) {
  const log = $('log')
  const line = document.createElement('div')
  line.textContent = `${new Date(at ?? Date.now()).toISOString().slice(11, 19)} ${text}`
  log.append(line)
  while (log.childElementCount > MAX_LOG) log.firstElementChild.remove()
  log.scrollTop = log.scrollHeight
}

/** Many events at once (a late page's history) draw once. */
function schedule () {
  if (pending) return
  pending = true
  requestAnimationFrame(() => { pending = false; render() })
}

function render () {
  window.__ioswarmLive.seconds = seconds.length
  window.__ioswarmLive.connected = seconds.map((s) => s.clients.connected)
  const last = seconds[seconds.length - 1]
  if (last) headline(last)
  updateSelect($('row-select'), breakdownKeys(seconds).rows, null)
  updateSelect($('node-select'), breakdownKeys(seconds).nodes, 'all nodes')
  showThresholds()
  const specs = liveCharts(seconds, {
    row: $('row-select').value || null, node: $('node-select').value || null, marks, windows, thresholds, shape, startMs: startMs ?? undefined
  })
  for (const spec of specs) draw(spec)
}

/** Each threshold as it stands now (the run's verdict comes at its end). */
function showThresholds () {
  const box = $('thresholds')
  box.hidden = thresholds.length === 0
  box.textContent = 'thresholds as they stand: '
  for (const t of thresholdsNow(seconds, thresholds)) {
    const span = document.createElement('span')
    span.className = t.ok === null ? 'muted' : t.ok ? 'pass' : 'fail'
    span.dataset.threshold = t.expression
    span.textContent = `${t.expression} ${t.ok === null ? '(no reading yet)' : `${t.ok ? 'passing' : 'failing'} (${Math.round(t.value * 10) / 10})`}  `
    box.append(span)
  }
}

function headline (s) {
  const set = (name, v) => {
    const el = document.querySelector(`[data-metric="${name}"]`)
    if (el) el.textContent = v === null || v === undefined ? '–' : String(Number.isInteger(v) ? v : Math.round(v * 10) / 10)
  }
  set('connected', s.clients.connected)
  set('simulators', s.clients.simulators)
  set('connects', s.clients.connects)
  set('errors', s.clients.errors)
  set('disconnects', s.clients.disconnects)
  set('messages', s.totals.messages)
  set('received', s.totals.received)
  set('missing', s.totals.missing)
  const lastDelay = [...seconds].reverse().find((x) => x.delivery?.relative)?.delivery.relative
  set('p50', lastDelay?.p50)
  set('p99', lastDelay?.p99)
  set('max', lastDelay?.max)
  set('emits-sent', s.totals.emitsSent)
  set('emits-acked', s.totals.emitsAcked)
  set('ack-p99', s.traffic?.ack?.p99)
  set('server-cpu', s.server ? Math.round(s.server.cpu) : null)
  set('saturated', s.health.saturated)
}

function updateSelect (select, keys, allLabel) {
  const have = [...select.options].map((o) => o.value).filter(Boolean)
  if (have.length === keys.length && have.every((k, i) => k === keys[i])) return
  const chosen = select.value
  select.textContent = ''
  if (allLabel) select.append(new window.Option(allLabel, ''))
  for (const k of keys) select.append(new window.Option(k, k))
  if (keys.includes(chosen)) select.value = chosen
}

function draw (spec) {
  let card = charts[spec.name]
  if (!card) {
    const figure = document.createElement('figure')
    figure.className = 'chart'
    figure.innerHTML = '<figcaption><h3></h3><p></p></figcaption><div class="canvas-box"><canvas></canvas></div><p class="no-data"></p>'
    $('charts').append(figure)
    const canvas = figure.querySelector('canvas')
    canvas.setAttribute('data-chart', spec.name)
    card = charts[spec.name] = { figure, canvas, chart: null }
  }
  card.figure.querySelector('h3').textContent = spec.title
  card.figure.querySelector('figcaption p').textContent = spec.caption
  card.figure.querySelector('.canvas-box').hidden = !spec.config
  card.figure.querySelector('.no-data').hidden = !!spec.config
  card.figure.querySelector('.no-data').textContent = spec.note ?? ''
  window.__ioswarmLive.points[spec.name] = spec.points
  if (!spec.config || !Chart) return
  if (!card.chart) {
    spec.config.options.plugins.tooltip = { filter: (item) => !item.dataset.ioswarmBand }
    card.chart = new Chart(card.canvas, spec.config)
  } else {
    card.chart.data.datasets = spec.config.data.datasets
    card.chart.update('none')
  }
}

function setUpControls () {
  const controls = $('controls')
  controls.dataset.token = token ? 'yes' : 'no'
  for (const button of document.querySelectorAll('[data-action]')) {
    button.disabled = !token
    button.title = token ? '' : 'open the URL the run printed (with its token) to act'
    button.addEventListener('click', () => act(button.dataset.action))
  }
  // Only the actions this command has (a run has no steps to stop after).
  fetch('/api/state').then((r) => r.json()).then((state) => {
    for (const button of document.querySelectorAll('[data-action]')) {
      const offered = state.actions.includes(button.dataset.action)
      button.hidden = !offered
      const input = button.previousElementSibling
      if (input?.tagName === 'LABEL') input.hidden = !offered
    }
  }).catch(() => {})
  $('row-select').addEventListener('change', render)
  $('node-select').addEventListener('change', render)
}

async function act (action) {
  const body = action === 'clients' ? { clients: Number($('clients').value) } : action === 'emit-rate' ? { rate: $('emit-rate').value } : {}
  const out = $('action-result')
  out.className = ''
  out.textContent = `${action}…`
  try {
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
    const res = await fetch(`/api/${action}`, { method: 'POST', headers, body: JSON.stringify(body) })
    const answer = await res.json()
    out.textContent = res.ok ? `${action}: done` : `${action}: ${answer.error ?? res.status}`
    if (!res.ok) out.className = 'why'
  } catch (error) {
    out.className = 'why'
    out.textContent = `${action}: ${error.message}`
  }
}
