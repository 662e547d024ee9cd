import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { readFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { capacityCases, escapeXml, junitXml, summaryJson } from '../../../results/files/ci.js'
import { simulatorAsRun } from '../../../results/report/kinds.js'
import { runCli } from '../../helpers/cli.js'
import { chromiumMissing, launchChromium } from '../report/browser-harness.js'

/** @param {string} name */
const fixture = (name) => JSON.parse(readFileSync(new URL(`../../fixtures/${name}`, import.meta.url), 'utf8'))
const FIXTURES = new URL('../../fixtures/', import.meta.url).pathname

/** @param {import('node:test').TestContext} t */
async function tempDir (t) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-ci-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

/** The testcases of a JUnit file, by regular expression: [name, failure message or null]. @param {string} xml */
function testcases (xml) {
  return [...xml.matchAll(/<testcase classname="([^"]*)" name="([^"]*)"[^>]*>([\s\S]*?)<\/testcase>/g)]
    .map(([, classname, name, body]) => [classname, name, /<failure message="([^"]*)"/.exec(body)?.[1] ?? null])
}

test('escapeXml: markup and quotes escaped, characters XML cannot hold replaced', () => {
  assert.equal(escapeXml('p99<500ms & "a" \'b\' >'), 'p99&#60;500ms &#38; &#34;a&#34; &#39;b&#39; &#62;')
  assert.equal(escapeXml('a\u0000b\u0007c\u001fd\ufffee'), 'a\ufffdb\ufffdc\ufffdd\ufffde')
  assert.equal(escapeXml('tab\tline\nret\r'), 'tab\tline\nret\r', 'whitespace XML allows stays')
  assert.equal(escapeXml('\ud83d\ude00 \ud83d x \ude00'), '\ud83d\ude00 \ufffd x \ufffd', 'pairs stay, lone surrogates go')
})

test('junitXml: a suite per result, a testcase per threshold, a failure with the measured value', () => {
  const run = fixture('run-hostile.json')
  const verdicts = [
    { expression: 'p99<1ms', ok: false, actual: 'p99 24.6ms (round 2, 4x250<!--</script>)' },
    { expression: 'missing<=1', ok: true, actual: 'missing 1 of 19980' }
  ]
  const xml = junitXml([{ kind: 'run', result: run, verdicts }], 'report')
  assert.match(xml, /^<\?xml version="1\.0" encoding="UTF-8"\?>\n<testsuites name="ioswarm report" tests="2" failures="1" errors="0">/)
  assert.match(
    xml,
    new RegExp(/<testsuite name="&#60;script&#62;alert\(1\)&#60;\/script&#62; &#34;run&#34; &#38; /.source +
      /\u2028 &#60;\/script&#62;" id="run-&#60;b&#62;hostile&#60;\/b&#62;" tests="2" failures="1"/.source)
  )
  assert.deepEqual(testcases(xml), [
    ['ioswarm.report.thresholds', 'p99&#60;1ms', 'p99 24.6ms (round 2, 4x250&#60;!--&#60;/script&#62;)'],
    ['ioswarm.report.thresholds', 'missing&#60;=1', null]
  ])
  assert.doesNotMatch(xml, /<script|<!--/)
  const empty = junitXml([{ kind: 'run', result: run, verdicts: [] }], 'run')
  assert.match(empty, /tests="0" failures="0"/)
})

test('a capacity search: its outcome, then each SLO at the step that decided the answer', () => {
  const search = fixture('capacity-small.json')
  const cases = capacityCases(search)
  assert.deepEqual(
    cases.map((c) => [c.name, c.ok]),
    [
      ['capacity', true],
      ['p99<200ms at 30 clients', true],
      ['missing=0 at 30 clients', true],
      ['connected>=100% (every client must connect) at 30 clients', true]
    ]
  )
  const failed = capacityCases({ ...search, outcome: 'failed-at-start', capacity: null, answer: 'below 10 clients' })
  assert.deepEqual(failed[0], { name: 'capacity', ok: false, actual: 'below 10 clients' })
  assert.equal(failed[1].name, `${search.steps[0].slo[0].expression} at ${search.steps[0].clients} clients`)
})

test('summaryJson: per result its kind, clients, deliveries, worst delays and verdicts; the exit code', () => {
  const sim = simulatorAsRun(fixture('sim-chat.json'))
  const summary = summaryJson([
    { kind: 'simulator', result: sim, verdicts: [{ expression: 'missing=0', ok: false, actual: 'missing 1 of 1170' }], file: 'sim.json' },
    { kind: 'capacity', result: fixture('capacity-small.json') }
  ], { command: 'report', exitCode: 3, version: '0.1.0' })
  assert.equal(summary.ok, false)
  assert.equal(summary.exitCode, 3)
  const [simulated, search] = /** @type {any[]} */ (summary.results)
  assert.deepEqual(
    [simulated.file, simulated.kind, simulated.clients, simulated.deliveries],
    ['sim.json', 'simulator', { target: 40, connected: 40, failed: 0 }, { expected: 1170, missing: 1 }]
  )
  assert.ok(simulated.delays.relativeP99Ms > 0)
  assert.deepEqual([simulated.verdicts.passed, simulated.verdicts.failed], [0, 1])
  assert.deepEqual([search.kind, search.outcome, search.capacity, search.verdicts.failed], ['capacity', 'found', 30, 0])
})

test('report --junit and --summary-json: files a CI reads, the same verdicts as the exit code', async (t) => {
  const dir = await tempDir(t)
  const junit = path.join(dir, 'junit.xml')
  const summary = path.join(dir, 'summary.json')
  const run = await runCli(t, ['bin/ioswarm.js', 'report', path.join(FIXTURES, 'sim-workers.json'), '--out', path.join(dir, 'r.html'),
    '--assert', 'p99<1s', '--assert', 'missing=0', '--junit', junit, '--summary-json', summary])
  assert.equal(run.code, 3, run.stderr)
  assert.match(run.stderr, new RegExp(`^written: ${junit}$`, 'm'))
  const xml = await readFile(junit, 'utf8')
  assert.deepEqual(testcases(xml), [
    ['ioswarm.report.thresholds', 'p99&#60;1s', null],
    ['ioswarm.report.thresholds', 'missing=0', 'missing 1 of 1140 expected deliveries (0.088%)']
  ])
  const json = JSON.parse(await readFile(summary, 'utf8'))
  assert.equal(json.command, 'report')
  assert.equal(json.exitCode, 3)
  assert.equal(json.results[0].kind, 'simulator')

  const search = await runCli(t, ['bin/ioswarm.js', 'report', path.join(FIXTURES, 'capacity-small.json'), '--out', path.join(dir, 'c.html'), '--junit', junit])
  assert.equal(search.code, 0, search.stderr)
  assert.match(search.stderr, /^capacity search .*: capacity: 30 clients at p99<200ms/m)
  assert.deepEqual(
    testcases(await readFile(junit, 'utf8')).map((c) => c[1]),
    ['capacity', 'p99&#60;200ms at 30 clients', 'missing=0 at 30 clients', 'connected&#62;=100% (every client must connect) at 30 clients']
  )

  const bad = await runCli(t, [
    'bin/ioswarm.js', 'report', path.join(FIXTURES, 'run-small.json'), '--out', path.join(dir, 'x.html'), '--junit',
    path.join(dir, 'no/such/junit.xml')
  ])
  assert.equal(bad.code, 2)
  assert.match(bad.stderr, /^ioswarm: --junit cannot be written: ENOENT/m)
})

test('the JUnit XML of hostile names parses as XML (Chromium\'s DOMParser)', { skip: chromiumMissing() ?? false }, async (t) => {
  const dir = await tempDir(t)
  const junit = path.join(dir, 'junit.xml')
  const { code, stderr } = await runCli(t, [
    'bin/ioswarm.js', 'report', path.join(FIXTURES, 'run-hostile.json'), '--out', path.join(dir, 'r.html'), '--junit',
    junit, '--assert', 'p99<1ms', '--assert', 'missing<=1'
  ])
  assert.equal(code, 3, stderr)
  const browser = await launchChromium()
  t.after(() => browser.close())
  const page = await browser.newPage()
  const parsed = await page.evaluate((text) => {
    const doc = new (/** @type {any} */ (globalThis).DOMParser)().parseFromString(text, 'application/xml')
    const error = doc.querySelector('parsererror')
    return {
      error: error?.textContent ?? null,
      suite: doc.querySelector('testsuite')?.getAttribute('name'),
      cases: [...doc.querySelectorAll('testcase')].map((c) => [c.getAttribute('name'), c.querySelector('failure')?.getAttribute('message') ?? null])
    }
  }, await readFile(junit, 'utf8'))
  assert.equal(parsed.error, null)
  assert.equal(parsed.suite, '<script>alert(1)</script> "run" & \u2028 </script>')
  assert.deepEqual(parsed.cases, [['p99<1ms', 'p99 24.6ms (round 2, 4x250<!--</script>)'], ['missing<=1', null]])
})
