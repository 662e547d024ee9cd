import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { buildDistribution, mergeMessageReports } from '../../../results/merge/aggregate.js'
import { assembleSamples } from '../../../results/collector/status.js'
import { csvField, deliveriesCsv, messagesCsv, samplesCsv } from '../../../results/files/csv.js'
import { messageReport, sample } from '../make-reports.js'

/**
 * A strict RFC 4180 reader, to check what the writer produced.
 * @param {string} text
 */
function parseCsv (text) {
  assert.ok(text.endsWith('\r\n'), 'the last row ends with CRLF')
  /** @type {string[][]} */
  const rows = []
  const field = /"((?:[^"]|"")*)"|([^",\r\n]*)/y
  let row = []
  let i = 0
  for (let guard = 0; i < text.length && guard < 1e6; guard++) {
    field.lastIndex = i
    const m = /** @type {RegExpExecArray} */ (field.exec(text))
    row.push(m[1] !== undefined ? m[1].replaceAll('""', '"') : m[2])
    i = field.lastIndex
    if (text[i] === ',') { i++; continue }
    assert.equal(text.slice(i, i + 2), '\r\n', `row separator at ${i}`)
    rows.push(row)
    row = []
    i += 2
  }
  return rows
}

/** @param {string} name @param {string} event */
function distribution (name, event) {
  const floor = { cpuMs: 1.5, spreadMs: 3 }
  const report = messageReport({ round: 1, seq: 2, relativeMs: [1, 2, 3], absoluteMs: [5, 6], missing: 1, sentAt: 99, event, floor })
  const older = messageReport({ round: 1, seq: 3, relativeMs: [1], sentAt: 99, event }) // from a simulator without floors
  const messages = mergeMessageReports(
    [{ simulator: '=a', report }, { simulator: 'b', report: older }],
    { '=a': { offsetMs: 0, uncertaintyMs: 0.25, reference: 'redis' } }
  )
  const s = sample(1_700_000_001_000, { elu: 0.95 })
  const samples = assembleSamples([{ simulator: 'sim,"1"', ...s }], [{ ...s.health, connected: 3, byTransport: { websocket: 2, polling: 1 }, server: 'w-1' }])
  return buildDistribution({
    name, simulators: 1, clientsPerSimulator: 3, startedAt: 0, endedAt: 1, messages, rounds: [], samples, finals: [], simulatorList: []
  })
}

test('fields are quoted per RFC 4180 and formulas are neutralised', () => {
  assert.equal(csvField('plain'), 'plain')
  assert.equal(csvField('a,b'), '"a,b"')
  assert.equal(csvField('say "hi"'), '"say ""hi"""')
  assert.equal(csvField('two\nlines'), '"two\nlines"')
  assert.equal(csvField('=HYPERLINK("http://x")'), '"\'=HYPERLINK(""http://x"")"')
  for (const c of ['+', '-', '@', '\t']) assert.equal(csvField(`${c}1`), `'${c}1`)
  assert.equal(csvField(-1.5), '-1.5', 'negative numbers stay numbers')
  assert.deepEqual([csvField(null), csvField(undefined), csvField(NaN), csvField(true)], ['', '', '', 'true'])
})

test('messages CSV: one row per message per distribution, values round-trip', () => {
  const d = distribution('2x500', 'news,\r\n"live"')
  const rows = parseCsv(messagesCsv([d, distribution('=1+1', 'broadcast')]))
  assert.equal(rows.length, 5)
  const header = rows[0]
  const first = Object.fromEntries(header.map((h, i) => [h, rows[1][i]]))
  assert.equal(first.distribution, '2x500')
  assert.equal(first.event, 'news,\r\n"live"')
  assert.deepEqual([first.round, first.seq, first.id, first.received, first.expected, first.missing], ['1', '2', '1.2', '3', '4', '1'])
  assert.deepEqual(
    [first.relative_p50_ms, first.absolute_p99_ms, first.absolute_uncertainty_ms, first.sent_at],
    ['2', String(d.messages[0].absolute?.p99), '0.25', '99']
  )
  assert.deepEqual([first.floor_cpu_ms, first.floor_spread_ms, first.floor_simulator, first.floor_busy_max], ['1.5', '3', "'=a", '0.5'])
  const older = Object.fromEntries(header.map((h, i) => [h, rows[2][i]]))
  assert.deepEqual([older.id, older.floor_cpu_ms, older.floor_spread_ms, older.floor_simulator, older.floor_busy_max], ['1.3', '', '', '', ''])
  assert.equal(rows[3][0], "'=1+1")
  assert.ok(rows.every((r) => r.length === header.length))
})

test('samples CSV: one row per timeline point, process sample and server sample', () => {
  const rows = parseCsv(samplesCsv([distribution('1x3', 'broadcast')]))
  assert.deepEqual(rows.map((r) => [r[1], r[2]]), [['kind', 'source'], ['timeline', 'sim,"1"'], ['health', 'sim,"1"'], ['server', 'w-1']])
  const header = rows[0]
  const health = Object.fromEntries(header.map((h, i) => [h, rows[2][i]]))
  assert.deepEqual([health.elu, health.saturated, health.time, health.connected], ['0.95', 'true', '2023-11-14T22:13:21.000Z', ''])
  const server = Object.fromEntries(header.map((h, i) => [h, rows[3][i]]))
  assert.deepEqual([server.connected, server.websocket, server.polling], ['3', '2', '1'])
})

test('messages CSV: namespace, room and copy counts come last; deliveries CSV: rows, namespaces, total per distribution', () => {
  const run = /** @type {import('../../../lib/schema/result-schema.js').RunResult} */ (
    JSON.parse(readFileSync(new URL('../../fixtures/run-hostile.json', import.meta.url), 'utf8'))
  )
  const messages = parseCsv(messagesCsv(run.distributions))
  assert.deepEqual(messages[0].slice(-4), ['namespace', 'room', 'duplicates', 'misdelivered'])
  assert.deepEqual(messages[1].slice(-4), ['/', '', '0', '0'])
  const rows = parseCsv(deliveriesCsv(run.distributions))
  const header = rows[0]
  const records = rows.slice(1).map((r) => Object.fromEntries(header.map((h, i) => [h, r[i]])))
  assert.ok(rows.every((r) => r.length === header.length))
  const first = records.filter((r) => r.distribution === run.distributions[0].name)
  assert.deepEqual(first.map((r) => r.scope).filter((s, i, all) => all.indexOf(s) === i), ['room', 'namespace', 'total'])
  assert.equal(first.filter((r) => r.scope === 'room').length, 22, 'everyone, the top 20 rooms, and the 5 others folded')
  const room7 = first.find((r) => r.room.startsWith('room-7<'))
  assert.deepEqual(
    [room7?.room, room7?.namespace, room7?.event, room7?.misdelivered, room7?.missing],
    ['room-7</td><script>alert(15)</script>', '/<b>chat</b>', '<img src=x onerror=alert(13)>', '3', '1'],
    'hostile names are data'
  )
  const folded = first.find((r) => r.rooms_folded === '5')
  assert.deepEqual([folded?.room, folded?.messages], ['', '10'])
  const total = first.find((r) => r.scope === 'total')
  assert.deepEqual([total?.namespace, total?.event, total?.misdelivered, total?.duplicates], ['*', '*', '3', '2'])
  assert.equal(Number(total?.relative_p99_ms), run.distributions[0].deliveries?.total.relative.p99)
  assert.equal(parseCsv(deliveriesCsv([{ ...run.distributions[0], deliveries: undefined }])).length, 1, 'an older result: the header only')
})
