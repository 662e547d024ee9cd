import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { checkResult, checkRunResult, readResult, readRunResult } from '../../../results/report/load.js'
import { EXIT, IoswarmError } from '../../../lib/errors.js'

const SMALL = fileURLToPath(new URL('../../fixtures/run-small.json', import.meta.url))

/** @param {Promise<unknown> | (() => unknown)} action @param {RegExp} message */
async function rejectsInput (action, message) {
  const run = typeof action === 'function' ? async () => action() : () => action
  await assert.rejects(run, (error) => {
    assert.ok(error instanceof IoswarmError)
    assert.equal(error.exitCode, EXIT.USAGE)
    assert.match(error.message, message)
    return true
  })
}

test('readRunResult reads a run result', async () => {
  const run = await readRunResult(SMALL)
  assert.equal(run.run.id, 'run-fixture-small')
  assert.equal(run.distributions.length, 2)
})

test('a missing file or bad JSON names the path, and the position when the parser gives one', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'ioswarm-load-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  await rejectsInput(readRunResult(join(dir, 'nope.json')), /^cannot read .*nope\.json: no such file$/)
  await rejectsInput(readRunResult(dir), /cannot read .*: it is a directory/)
  const bad = join(dir, 'bad.json')
  writeFileSync(bad, '{\n  "kind": "run",\n  "schemaVersion" 1\n}')
  await rejectsInput(readRunResult(bad), /bad\.json is not valid JSON: .*position 37.* \(line 3, column 19\)/)
  writeFileSync(bad, '')
  await rejectsInput(readRunResult(bad), /bad\.json is not valid JSON: Unexpected end of JSON input/)
})

test('checkRunResult rejects what is not a run result of this schema version, saying why', async () => {
  const good = JSON.parse(JSON.stringify(await readRunResult(SMALL)))
  await rejectsInput(() => checkRunResult([], 'x.json'), /^x\.json is not an ioswarm result: expected a JSON object$/)
  await rejectsInput(() => checkRunResult({ ...good, kind: 'simulator' }, 'x.json'), /is a simulator result \(ioswarm simulate --json\)/)
  await rejectsInput(() => checkRunResult({ ...good, kind: undefined }, 'x.json'), /"kind" is undefined, expected "run"/)
  await rejectsInput(
    () => checkRunResult({ ...good, schemaVersion: 2 }, 'x.json'),
    /has schemaVersion 2, this ioswarm reads schemaVersion 1: it was written by a newer ioswarm/
  )
  await rejectsInput(() => checkRunResult({ ...good, schemaVersion: undefined }, 'x.json'), /has schemaVersion undefined/)
  await rejectsInput(() => checkRunResult({ ...good, target: null }, 'x.json'), /has no "target" object/)
  const broken = JSON.parse(JSON.stringify(good))
  delete broken.distributions[1].timeline
  await rejectsInput(() => checkRunResult(broken, 'x.json'), /^x\.json distributions\[1\]\.timeline is not an array$/)
  const badBreakdown = JSON.parse(JSON.stringify(good))
  badBreakdown.distributions[0].deliveries = { rows: 'many' }
  await rejectsInput(() => checkRunResult(badBreakdown, 'x.json'), /^x\.json distributions\[0\]\.deliveries is not a delivery breakdown/)
  const older = JSON.parse(JSON.stringify(good))
  for (const d of older.distributions) { delete d.deliveries; delete d.scenario; delete d.clients.namespaces }
  assert.equal(checkRunResult(older, 'x.json'), older, 'a result older than the scenario fields reads')
  assert.equal(checkRunResult(good, 'x.json'), good)
})

test('readResult reads every kind a report reads, each as a report reads it', async () => {
  const fixtures = (/** @type {string} */ name) => fileURLToPath(new URL(`../../fixtures/${name}`, import.meta.url))
  assert.equal((await readResult(SMALL)).kind, 'run')
  const sim = await readResult(fixtures('sim-chat.json'))
  assert.equal(sim.kind, 'simulator')
  assert.equal(sim.result.kind, 'run', 'a simulate result is read as a run of one simulator')
  const workers = await readResult(fixtures('sim-workers.json'))
  assert.equal(workers.kind === 'simulator' && workers.result.from?.workers, 2)
  assert.equal((await readResult(fixtures('capacity-small.json'))).kind, 'capacity')
})

test('checkResult names what is missing in a simulate or capacity result, and any kind it does not read', async () => {
  const read = (/** @type {string} */ name) => JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8'))
  await rejectsInput(
    () => checkResult({ kind: 'window', schemaVersion: 1 }, 'x.json'),
    /^x\.json is not an ioswarm result: "kind" is "window", expected one of "run", "simulator", "capacity"$/
  )
  await rejectsInput(() => checkResult({ ...read('sim-chat.json'), schemaVersion: 2 }, 'x.json'), /has schemaVersion 2/)
  await rejectsInput(() => checkResult({ ...read('sim-chat.json'), messages: null }, 'x.json'), /^x\.json has no "messages" array$/)
  await rejectsInput(
    () => checkResult({ ...read('sim-chat.json'), health: { samples: [] } }, 'x.json'),
    /^x\.json has no "health" object with samples and a summary$/
  )
  await rejectsInput(() => checkResult({ ...read('sim-chat.json'), clock: undefined }, 'x.json'), /^x\.json has no "clock" object$/)
  await rejectsInput(() => checkResult({ ...read('capacity-small.json'), steps: {} }, 'x.json'), /^x\.json has no "steps" array$/)
  await rejectsInput(() => checkResult({ ...read('capacity-small.json'), swarm: null }, 'x.json'), /^x\.json has no "run", "swarm" or "target" object$/)
  await rejectsInput(() => checkResult({ ...read('run-small.json'), distributions: null }, 'x.json'), /^x\.json has no "distributions" array$/)
})
