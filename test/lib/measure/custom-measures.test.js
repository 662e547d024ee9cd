import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createCustomFigures, mergeCustomReports, MAX_CUSTOM_NAMES } from '../../../lib/measure/custom-measures.js'
import { parseThreshold } from '../../../results/thresholds/thresholds.js'
import { startAppServer } from '../../helpers/app-server.js'
import { runCli } from '../../helpers/cli.js'

test('custom figures: names are plain and bounded (later ones refused and counted), a name is a timing or a count, merged by name', () => {
  const a = createCustomFigures()
  a.timing('join_lobby', 10)
  a.timing('join_lobby', 30)
  a.count('joined')
  a.count('joined', 2)
  assert.throws(() => a.timing('join-lobby', 1), /custom figure name "join-lobby": a letter, then letters, digits or _/)
  assert.throws(() => a.count('join_lobby'), /custom figure join_lobby is a timing, not a count/)
  assert.throws(() => a.timing('t', -1), /ms must be a number ≥ 0/)
  for (let n = 0; n < MAX_CUSTOM_NAMES; n++) a.count(`c${n}`)
  a.count('joined', 1) // known: still counted
  const record = /** @type {import('../../../lib/schema/result-schema.js').CustomReport} */ (a.record())
  assert.equal(record.counts.joined, 4)
  assert.equal(Object.keys(record.timings).length + Object.keys(record.counts).length, MAX_CUSTOM_NAMES)
  assert.equal(record.refused, 2, 'c48 and c49 came after 50 names')
  assert.deepEqual(record.refusedNames, ['c48', 'c49'])
  const b = createCustomFigures()
  b.timing('join_lobby', 50)
  b.count('joined', 6)
  const merged = /** @type {import('../../../lib/schema/result-schema.js').CustomReport} */ (mergeCustomReports([record, b.record(), null]))
  assert.equal(merged.counts.joined, 10)
  assert.equal(merged.timings.join_lobby.count, 3)
  assert.ok(Math.abs(merged.timings.join_lobby.max - 50) < 0.1, 'HDR: 3 significant digits')
  assert.equal(merged.refused, 2)
  assert.equal(
    mergeCustomReports([{ timings: {}, counts: { 'bad name': 3, constructor: 1 }, refused: 0, refusedNames: [] }])?.counts.constructor,
    1,
    'a name read from JSON is data, never a prototype'
  )
  assert.deepEqual(
    mergeCustomReports([{ timings: {}, counts: { 'bad name': 3 }, refused: 0, refusedNames: [] }])?.counts,
    {},
    'a bad name read from JSON is left out'
  )
})

test('--assert custom.NAME.STAT: a bad name or statistic is a usage error naming --assert', () => {
  assert.deepEqual(parseThreshold('custom.join_lobby.p99<300ms'), {
    expression: 'custom.join_lobby.p99<300ms',
    metric: 'custom.join_lobby.p99',
    op: '<',
    value: 300,
    unit: 'ms'
  })
  assert.equal(parseThreshold('custom.joined.count>=5').unit, 'count')
  assert.throws(
    () => parseThreshold('custom.join-lobby.p99<300ms'),
    /^IoswarmError: --assert "custom.join-lobby.p99<300ms" has a custom figure name "join-lobby"/
  )
  assert.throws(
    () => parseThreshold('custom.join_lobby.p42<300ms'),
    /--assert .* reads "p42" of custom.join_lobby: write custom.join_lobby.STAT with STAT one of p50, p90, p99, max, mean, count/
  )
  assert.throws(() => parseThreshold('custom.joined.count>1%'), /--assert .* takes a whole count for custom.joined.count/)
})

test('simulate --workers 2: hooks\' ctx.timing and ctx.count reach the merged result and the summary; ' +
  'report --assert on them exits 3 when one fails', async (t) => {
  const server = await startAppServer(t)
  const dir = mkdtempSync(join(tmpdir(), 'ioswarm-custom-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const hooks = join(dir, 'hooks.js')
  // Every client times a join (its ack) and counts it; client 0 also records 60 names: 10 of them past the bound.
  writeFileSync(hooks, `
    export async function onConnect (socket, ctx) {
      const started = performance.now()
      await socket.emitWithAck('join', { room: 'lobby' })
      ctx.timing('join_lobby', performance.now() - started)
      ctx.count('joined')
      if (ctx.i === 0) for (let n = 0; n < 60; n++) ctx.count('many' + n)
    }
  `)
  const sim = await runCli(t, ['bin/ioswarm.js', 'simulate', '-c', '4', '--workers', '2', '--url', server.url, '--ramp', '0', '--duration', '2',
    '--scenario', hooks, '--window', '1s', '--json'], { timeoutMs: 30000 })
  assert.equal(sim.code, 0, sim.stderr)
  const result = JSON.parse(sim.stdout)
  assert.equal(result.custom.timings.join_lobby.count, 4, 'one timing per client, over both workers')
  assert.equal(result.custom.counts.joined, 4)
  assert.ok(result.custom.timings.join_lobby.p99 > 0)
  assert.equal(result.custom.refused, 12, '50 names kept in the process of client 0 (join_lobby, joined, many0..many47), 12 records refused')
  assert.match(sim.stderr, /custom figures \(ctx\.timing, ctx\.count\):\n\s*name\s+kind\s+count\s+p50/)
  assert.match(sim.stderr, /join_lobby\s+timing\s+4\s/)
  assert.match(sim.stderr, /CUSTOM FIGURES REFUSED: 12 records of names past the first 50 \(many48, many49/)
  // --window: each figure in the window it was recorded in too, merged over the workers.
  const windows = /** @type {import('../../../lib/schema/result-schema.js').WindowReport[]} */ (result.windows)
  assert.equal(windows.reduce((n, w) => n + (w.custom?.timings.join_lobby?.count ?? 0), 0), 4)
  assert.equal(windows.reduce((n, w) => n + (w.custom?.counts.joined ?? 0), 0), 4)
  assert.match(sim.stderr, /window [\d:]+–[\d:]+: .*; custom join_lobby p50 [\d.]+ ?ms p99 [\d.]+ ?ms \(\d\), joined \d, many0 1, … \d+ more/)
  const file = join(dir, 'sim.json')
  writeFileSync(file, sim.stdout)

  const report = await runCli(t, ['bin/ioswarm.js', 'report', file, '--assert', 'custom.join_lobby.p99<0.001ms', '--assert', 'custom.joined.count=4',
    '--assert', 'custom.nothing.count>0'], { timeoutMs: 30000 })
  assert.equal(report.code, 3, report.stderr)
  assert.match(report.stderr, /FAIL\s+custom\.join_lobby\.p99<0\.001ms\s+custom\.join_lobby\.p99 [\d.]+ ?ms \((window [\d:]+–[\d:]+, )?1x4, \d+ timings\)/)
  assert.match(report.stderr, /pass\s+custom\.joined\.count=4/)
  assert.match(report.stderr, /FAIL\s+custom\.nothing\.count>0\s+custom\.nothing\.count: no data \(no hook recorded nothing\)/)
  assert.match(readFileSync(join(dir, 'report.html'), 'utf8'), /<h3>Custom figures<\/h3>.*join_lobby/s)
  const bad = await runCli(t, ['bin/ioswarm.js', 'report', file, '--assert', 'custom.join-lobby.p99<3ms'], { timeoutMs: 30000 })
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /--assert "custom.join-lobby.p99<3ms" has a custom figure name "join-lobby"/)
})
