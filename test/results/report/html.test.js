import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createHash } from 'node:crypto'
import { chartCard, chartCards, escapeHtml, htmlPage, htmlTable, jsonForScript } from '../../../results/report/html.js'

const HOSTILE = ['<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', '</script>', "it's & <b>", '<!--', '\u2028\u2029']

test('escapeHtml leaves no markup character and keeps the text', () => {
  for (const text of HOSTILE) {
    const escaped = escapeHtml(text)
    assert.doesNotMatch(escaped, /[<>"']/)
    assert.equal(escaped.replace(/&#(\d+);/g, (_, n) => String.fromCharCode(Number(n))), text)
  }
  assert.equal(escapeHtml(null), '')
  assert.equal(escapeHtml(12), '12')
})

test('jsonForScript cannot close its script block and parses back to the same value', () => {
  const value = { ids: HOSTILE, nested: { '</script>': '<!-- -->' } }
  const json = jsonForScript(value)
  assert.doesNotMatch(json, /[<>&\u2028\u2029]/)
  assert.deepEqual(JSON.parse(json), value)
})

test('htmlTable escapes every cell and right-aligns numbers', () => {
  const html = htmlTable(['<x>', 'n'], [['<script>alert(1)</script>', 12], ['x', '3.5ms']], { rowClasses: ['warn', undefined] })
  assert.doesNotMatch(html, /<script>|<x>/)
  assert.match(html, /<th>&#60;x&#62;<\/th>/)
  assert.match(html, /<tr class="warn"><td>&#60;script&#62;alert\(1\)&#60;\/script&#62;<\/td><td class="num">12<\/td><\/tr>/)
  assert.match(html, /<td class="num">3\.5ms<\/td>/)
})

test('chartCard gives a canvas when there is data and the note when there is none', () => {
  const base = { name: 'd1-x', title: 'T', caption: 'C', points: 1, note: null }
  assert.match(chartCard({ ...base, config: { type: 'line' } }), /<canvas data-chart="d1-x"/)
  const empty = chartCard({ ...base, config: null, points: 0, note: 'no data: <none>' })
  assert.doesNotMatch(empty, /<canvas/)
  assert.match(empty, /<p class="no-data" data-chart="d1-x">no data: &#60;none&#62;<\/p>/)
})

test('chartCards: a card for each chart with data, and one line naming the others and why', () => {
  const base = { caption: 'C', points: 1, note: null }
  const specs = [
    { ...base, name: 'd1-a', title: 'A', config: { type: 'line' } },
    { ...base, name: 'd1-b', title: 'B <b>', config: null, points: 0, note: 'no data: no <probe>' },
    { ...base, name: 'd1-c', title: 'C', config: { type: 'bar' } },
    { ...base, name: 'd1-d', title: 'D', config: null, points: 0, note: null }
  ]
  const html = chartCards(specs)
  assert.deepEqual([...html.matchAll(/<figure class="chart">/g)].length, 2, 'no card for a chart without data')
  assert.match(html, /<canvas data-chart="d1-a"[\s\S]*<canvas data-chart="d1-c"/)
  assert.equal([...html.matchAll(/<p class="not-measured">/g)].length, 1)
  assert.match(
    html,
    new RegExp(/<p class="not-measured">Not measured: <span class="no-data" data-chart="d1-b">B &#60;b&#62; /.source +
      /\(no &#60;probe&#62;\)<\/span>; <span class="no-data" data-chart="d1-d">D \(no data\)<\/span><\/p>$/.source)
  )
  assert.doesNotMatch(chartCards(specs.filter((s) => s.config)), /not-measured/, 'no line when every chart has data')
})

test('htmlPage inlines Chart.js and allows exactly its own scripts and style by hash', () => {
  const html = htmlPage({ title: '<t>', body: '<main></main>', charts: [] })
  assert.match(html, /<title>&#60;t&#62;<\/title>/)
  assert.match(html, /Chart\.js v4/)
  assert.doesNotMatch(html, /https?:\/\/(?!www\.chartjs\.org)[^\s"'<>]+\.(js|css|woff2?)/, 'no external script, style or font')
  const csp = /http-equiv="Content-Security-Policy" content="([^"]+)"/.exec(html)?.[1].replace(/&#39;/g, "'") ?? ''
  assert.match(csp, /default-src 'none'/)
  const inline = [...html.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1])
  const styles = [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1])
  assert.equal(inline.length, 2)
  for (const text of [...inline, ...styles]) {
    const hash = `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`
    assert.ok(csp.includes(hash), `CSP allows ${hash}`)
  }
})
