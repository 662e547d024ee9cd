import { test } from 'node:test'
import assert from 'node:assert/strict'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { runCapacity } from '../../../runner/capacity/index.js'
import { capacityWarnings } from '../../../runner/capacity/format.js'
import { nextStep } from '../../../runner/capacity/search.js'
import { startDegradingServer } from '../../helpers/degrading-server.js'
import { startTestServer } from '../../helpers/swarm.js'

/** Small and quick: two simulators, short ramps and rounds, a tight message timeout. */
const QUICK = { simulators: 2, engine: 'lean', ramp: '100ms', rounds: '2x300', messageTimeout: '2s', connectTimeout: '10s', growth: 2, precision: '10%' }

/** @param {string[]} lines */
const logTo = (lines) => (/** @type {string} */ line) => { lines.push(line) }

test('finds the client count at which a server starts to delay broadcasts, within --precision', async (t) => {
  // Past 30 clients half of them get each broadcast 1.5 s late, twice the SLO: a loaded host (seen: busy loops at load
  // 30) can hold a delivery up a few hundred ms, so the SLO leaves it that much and more below the server's own delay.
  const server = await startDegradingServer(t, { limit: 30, mode: 'delay', delayMs: 1500 })
  /** @type {string[]} */
  const lines = []
  const options = { ...QUICK, messageTimeout: '4s', target: server.url, token: server.token, slo: ['p99<750ms', 'missing=0'], start: 10, max: 80 }
  const result = await runCapacity(options, { log: logTo(lines) })
  assert.equal(result.outcome, 'found', lines.join('\n'))
  const capacity = /** @type {number} */ (result.capacity)
  assert.ok(capacity <= 30 && capacity >= 27, `capacity ${capacity} within 10 % below the true 30\n${lines.join('\n')}`)
  assert.ok(/** @type {number} */ (result.bounds.failed) > 30 && /** @type {number} */ (result.bounds.failed) - capacity <= capacity * 0.1)
  // The search's order, whatever a loaded host made of a step (a step the simulators limited is measured again): each
  // step is the move the steps before it call for, and the last leaves the answer found.
  const plan = { start: 10, max: 80, growth: 2, precision: 0.1 }
  for (const [k, s] of result.steps.entries()) {
    assert.deepEqual(nextStep(result.steps.slice(0, k), plan), { next: s.clients, phase: s.phase }, `step ${k + 1}\n${lines.join('\n')}`)
  }
  assert.deepEqual(nextStep(result.steps, plan), { done: 'found' })
  // Each client count judged by its side of the server's limit (its last measurement): 10, 20, then 40 fails and 30 passes.
  const judged = [...new Map(result.steps.map((s) => [s.clients, s.verdict]))]
  assert.deepEqual(judged.slice(0, 4), [[10, 'pass'], [20, 'pass'], [40, 'fail'], [30, 'pass']], lines.join('\n'))
  for (const [clients, verdict] of judged) assert.equal(verdict, clients <= 30 ? 'pass' : 'fail', `${clients} clients`)
  const failed = result.steps.find((s) => s.clients === 40)
  assert.match(failed?.why ?? '', /^p99 \d+ms \(round 3, 40 clients\)$/, 'the failing SLO and its value')
  assert.ok(
    (failed?.relative.p99 ?? 0) >= 1490,
    `the 1.5 s the server held half the clients back (a loaded machine fires its timer late): ${failed?.relative.p99}`
  )
  assert.equal(failed?.limitedBy, null)
  assert.ok(result.steps.every((s) => s.verdict === 'inconclusive' || s.connected === s.clients), 'every client of each step connected')
  // The simulators' health over each step, in shape: both simulators, their shares adding up to the step, utilisation a
  // share, a second at 0.9 or more counted saturated; and the verdict agrees with it: only an inconclusive step names
  // the simulators as its limit. (How busy a loaded host makes them is not this test's to bound.)
  for (const s of result.steps) {
    assert.deepEqual([s.simulators.length, s.simulators.reduce((sum, x) => sum + x.clients, 0)], [2, s.clients], `step ${s.step}`)
    for (const x of s.simulators) {
      assert.ok(x.eluMax >= 0 && x.eluMax <= 1 && x.saturatedSeconds <= x.samples, `step ${s.step}: ${JSON.stringify(x)}`)
      if (x.eluMax >= 0.9) assert.ok(x.saturatedSeconds >= 1, `step ${s.step}: ${JSON.stringify(x)}`)
    }
    assert.equal(s.limitedBy !== null, s.verdict === 'inconclusive', `step ${s.step}: ${s.verdict}, limited by ${s.limitedBy}`)
  }
  assert.equal(result.steps.filter((s) => s.verdict === 'pass').every((s) => s.missing === 0 && s.expected === 2 * s.clients), true)
  assert.match(
    result.answer,
    new RegExp(`^capacity: ${capacity} clients at p99<750ms, missing=0 — websocket \\(lean\\), target http://127\\.0\\.0\\.1:\\d+, 2 simulators`)
  )
  assert.equal(lines.filter((l) => /^step \d+ \((grow|narrow)\)/.test(l)).length, result.steps.length, 'one progress line per step')
  assert.equal(result.schemaVersion, 1)
  assert.deepEqual(JSON.parse(JSON.stringify(result)), result, 'JSON-serialisable')
  // Each step broadcast its own message ids: its round (2x300) numbered on from the last step's.
  assert.deepEqual(result.steps.map((s) => s.roundNumbers), result.steps.map((_, k) => [k + 1]))
})

test('a simulator that is its own bottleneck makes the failing step inconclusive, with the reason and the advice; no capacity is reported', async (t) => {
  const server = await startDegradingServer(t, { limit: 25, mode: 'drop' })
  // Every simulator child burns its event loop 95 % of the time (loaded at its start).
  const before = process.env.NODE_OPTIONS
  process.env.NODE_OPTIONS = `${before ?? ''} --import=${pathToFileURL(fileURLToPath(new URL('../../fixtures/burn-cpu.js', import.meta.url))).href}`.trim()
  t.after(() => {
    if (before === undefined) delete process.env.NODE_OPTIONS
    else process.env.NODE_OPTIONS = before
  })
  /** @type {string[]} */
  const lines = []
  const result = await runCapacity({ ...QUICK, target: server.url, token: server.token, slo: ['missing=0'], start: 10, max: 80 }, { log: logTo(lines) })
  assert.equal(result.outcome, 'inconclusive', lines.join('\n'))
  assert.equal(result.capacity, null)
  const last = /** @type {import('../../../lib/schema/capacity-schema.js').CapacityStep} */ (result.steps.at(-1))
  assert.equal(last.verdict, 'inconclusive')
  assert.ok(last.clients > 25, 'the server dropped messages at that step')
  assert.ok(last.missing > 0)
  assert.equal(last.limitedBy, 'saturated')
  assert.match(last.why, /^missing \d+ of \d+ expected deliveries.*, but simulators? capacity-.*-sim\d.* saturated/)
  const [again, first] = [result.steps.at(-1), result.steps.at(-2)]
  assert.deepEqual([first?.clients, first?.verdict, again?.phase], [last.clients, 'inconclusive', 'again'], 'measured once more before giving up')
  assert.ok(result.steps.slice(0, -2).every((s) => s.verdict === 'pass'), 'the steps before it passed, saturated or not')
  assert.match(result.answer, /^capacity: inconclusive at missing=0 — .*: \d+ clients passed, but at \d+ the simulators limited the step/)
  assert.ok(result.advice.some((a) => a.includes('--simulators 4')), result.advice.join('\n'))
})

test('a stop (the signal) ends the search after the step in progress: the steps so far, outcome stopped, no capacity', async (t) => {
  const server = await startDegradingServer(t, { limit: 1000, mode: 'drop' })
  const controller = new AbortController()
  const result = await runCapacity({ ...QUICK, target: server.url, token: server.token, slo: ['missing=0'], start: 4, max: 400 }, {
    signal: controller.signal,
    log: (line) => { if (line.startsWith('step 2 ')) controller.abort() }
  })
  assert.equal(result.outcome, 'stopped')
  assert.equal(result.capacity, null)
  assert.deepEqual(result.steps.map((s) => [s.clients, s.verdict]), [[4, 'pass'], [8, 'pass']])
  assert.match(result.answer, /^capacity: stopped before an answer at missing=0 — .* \(8 clients passed so far\)$/)
})

test('--protocol websocket: the search runs against the plain WebSocket reference server, growing the plain clients step by step', async (t) => {
  /** @type {string[]} */
  const lines = []
  const result = await runCapacity(
    {
      protocol: 'websocket',
      simulators: 1,
      ramp: '100ms',
      rounds: '2x300',
      messageTimeout: '2s',
      connectTimeout: '10s',
      growth: 2,
      precision: '10%',
      slo: ['missing=0'],
      start: 10,
      max: 40
    },
    { log: logTo(lines) }
  )
  assert.equal(result.outcome, 'max', lines.join('\n'))
  assert.deepEqual(result.steps.map((s) => [s.clients, s.verdict, s.connected]), [[10, 'pass', 10], [20, 'pass', 20], [40, 'pass', 40]], lines.join('\n'))
  assert.match(result.answer, /websocket \(websocket\), reference server/)
})

test('against a server that wants a token, the look before the search is the first client: its token, no false warning, no refusal', async (t) => {
  const secret = 'capacity-s3cret'
  const server = await startTestServer(t, { authToken: secret, pingIntervalMs: 1000 })
  /** @type {string[]} */
  const lines = []
  const result = await runCapacity(
    {
      ...QUICK,
      simulators: 1,
      ramp: undefined,
      target: server.url,
      token: server.token,
      auth: JSON.stringify({ token: secret }),
      slo: ['missing=0'],
      start: 2,
      max: 4
    },
    { log: logTo(lines) }
  )
  assert.equal(result.outcome, 'max', lines.join('\n'))
  assert.deepEqual(lines.filter((l) => /warning/.test(l)), [], 'no warning')
  assert.match(lines.join('\n'), /ramp 1 s per step/, 'the ramp read from the handshake the look got')
  const stats = /** @type {{ app: { refused: number } }} */ (await (await fetch(`${server.url}/stats`)).json())
  assert.equal(stats.app.refused, 0, 'no refusal counted by the server')
})

test('reports the collector refuses past its bound are counted in the result and warned of, as a run warns', async (t) => {
  const server = await startDegradingServer(t, { limit: 1000, mode: 'drop' })
  // A bound of 1 report: each of the step's 2 messages is reported by each of the 2 simulators.
  const result = await runCapacity({ ...QUICK, target: server.url, token: server.token, slo: ['missing=0'], start: 2, max: 2 }, { maxMessageReports: 1 })
  const refused = result.reportsRefused
  assert.ok(refused && refused.total >= 1 && refused.limit === 1, JSON.stringify(refused))
  assert.equal(Object.values(refused.bySimulator).reduce((sum, n) => sum + n, 0), refused.total)
  assert.ok(Object.keys(refused.bySimulator).every((id) => /^capacity-.*-sim[12]$/.test(id)), JSON.stringify(refused.bySimulator))
  const warnings = capacityWarnings(result)
  assert.equal(warnings.length, 1, warnings.join('\n'))
  assert.match(
    warnings[0],
    new RegExp(`^WARNING: capacity-\\S+: ${refused.total} message reports refused past the collector's bound of 1 per run \\(.*\\); ` +
      'they are missing from the steps\' rounds \\(their verdicts\\)')
  )
  assert.deepEqual(JSON.parse(JSON.stringify(result)), result, 'JSON-serialisable')
})
