/**
 * CI outputs (--junit, --summary-json) of `run`, `capacity` and `report`: the verdicts as
 * JUnit XML, which GitLab, Jenkins and GitHub test reporters read (one testcase per
 * threshold, a failure element with the measured value), and a small JSON summary. Pure
 * functions from results, and one writer the three commands share.
 */
import { access, constants, writeFile } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import { stepLevel } from '../../lib/schema/capacity-schema.js'
import { invalidOption } from '../../lib/errors.js'
import { missedDeliveries } from '../merge/delivery-rows.js'

/**
 * @typedef {import('../../lib/schema/result-schema.js').RunResult} RunResult
 * @typedef {import('../../lib/schema/result-schema.js').ThresholdVerdict} ThresholdVerdict
 * @typedef {import('../../lib/schema/capacity-schema.js').CapacityResult} CapacityResult
 * @typedef {{ kind: 'run' | 'simulator', result: RunResult, verdicts: ThresholdVerdict[], file?: string }
 *   | { kind: 'capacity', result: CapacityResult, file?: string }} CiEntry one result and its verdicts
 * @typedef {{ name: string, ok: boolean, actual: string }} CiCase
 */

/** Characters XML 1.0 cannot hold: controls other than tab and newlines, U+FFFE/FFFF, lone surrogates. */
// eslint-disable-next-line no-control-regex -- finding those control characters is the point
const NOT_XML = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/**
 * Text for XML content and attribute values: markup escaped, and the characters XML 1.0
 * cannot hold at all (controls, lone surrogates, U+FFFE/FFFF) replaced, so any name or reason
 * a server sent gives a file every parser reads.
 * @param {unknown} value
 */
export function escapeXml (value) {
  return String(value ?? '')
    .replace(NOT_XML, '\ufffd')
    .replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

/**
 * The verdicts of a capacity search: its outcome (passes when it found an answer), then each
 * SLO at the step that decided it (the largest passing step, else the first step).
 * @param {CapacityResult} result
 * @returns {CiCase[]}
 */
export function capacityCases (result) {
  const found = result.outcome === 'found' || result.outcome === 'max'
  const passing = result.steps.filter((s) => s.verdict === 'pass' && stepLevel(s) === result.capacity)
  const step = found ? passing[passing.length - 1] : result.steps[0]
  const at = step && (result.vary === 'emit-rate' ? `${stepLevel(step)} messages/s` : `${step.clients} clients`)
  return [
    { name: 'capacity', ok: found, actual: result.answer },
    ...(step ? step.slo.map((v) => ({ name: `${v.expression} at ${at}`, ok: v.ok, actual: v.actual })) : [])
  ]
}

/**
 * The testcases of one entry.
 * @param {CiEntry} entry
 * @returns {CiCase[]}
 */
function casesOf (entry) {
  if (entry.kind === 'capacity') return capacityCases(entry.result)
  return entry.verdicts.map((v) => ({ name: v.expression, ok: v.ok, actual: v.actual }))
}

/**
 * One testcase; a failed one has a failure element whose message is the measured value.
 * @param {CiCase} c
 * @param {string} classname
 */
function testcaseXml (c, classname) {
  const open = `    <testcase classname="${escapeXml(classname)}" name="${escapeXml(c.name)}" time="0">`
  if (c.ok) return `${open}<system-out>${escapeXml(c.actual)}</system-out></testcase>`
  return `${open}\n      <failure message="${escapeXml(c.actual)}" type="threshold">${escapeXml(`${c.name} failed: ${c.actual}`)}</failure>\n    </testcase>`
}

/**
 * The testsuite of one result.
 * @param {CiEntry} entry
 * @param {string} command
 */
function testsuiteXml (entry, command) {
  const cases = casesOf(entry)
  const { run } = entry.result
  const classname = `ioswarm.${command}.${entry.kind === 'capacity' ? 'slo' : 'thresholds'}`
  const attributes = [
    ['name', run.name], ['id', run.id], ['tests', cases.length], ['failures', cases.filter((c) => !c.ok).length], ['errors', 0], ['skipped', 0],
    ['time', Math.max(0, (run.endedAt - run.startedAt) / 1000).toFixed(3)], ['timestamp', new Date(run.startedAt).toISOString().slice(0, 19)],
    ...(entry.file ? [['file', entry.file]] : [])
  ].map(([k, v]) => `${k}="${escapeXml(v)}"`).join(' ')
  return [`  <testsuite ${attributes}>`, ...cases.map((c) => testcaseXml(c, classname)), '  </testsuite>'].join('\n')
}

/**
 * JUnit XML: a testsuite per result, a testcase per verdict, a failure element carrying the
 * measured value for each verdict that failed.
 * @param {CiEntry[]} entries
 * @param {string} command run, capacity or report: the testcases' class name
 * @returns {string}
 */
export function junitXml (entries, command) {
  const all = entries.flatMap(casesOf)
  const head = `<testsuites name="ioswarm ${escapeXml(command)}" tests="${all.length}" failures="${all.filter((c) => !c.ok).length}" errors="0">`
  return ['<?xml version="1.0" encoding="UTF-8"?>', head, ...entries.map((e) => testsuiteXml(e, command)), '</testsuites>', ''].join('\n')
}

/**
 * The worst relative and absolute p99 of a run-shaped result: over rounds, or over every
 * message of a distribution without rounds.
 * @param {RunResult} result
 */
function worstP99 (result) {
  /** @type {{ relative: number | null, absolute: number | null }} */
  const worst = { relative: null, absolute: null }
  const take = (/** @type {'relative' | 'absolute'} */ key, /** @type {{ count: number, p99: number } | null | undefined} */ s) => {
    if (s && s.count > 0 && (worst[key] === null || s.p99 > /** @type {number} */ (worst[key]))) worst[key] = s.p99
  }
  for (const d of result.distributions) {
    const rows = d.rounds.length === 0 && d.deliveries ? [d.deliveries.total] : d.rounds
    for (const r of rows) {
      take('relative', r.relative)
      take('absolute', r.absolute)
    }
  }
  return worst
}

/**
 * A small machine-readable summary: per result what it is, its clients, deliveries and worst
 * delays, its verdicts (or the capacity answer); the command's exit code.
 * @param {CiEntry[]} entries
 * @param {{ command: string, exitCode: number, version: string }} run
 */
export function summaryJson (entries, { command, exitCode, version }) {
  const results = entries.map((entry) => {
    const { result } = entry
    const head = { ...(entry.file ? { file: entry.file } : {}), kind: entry.kind, id: result.run.id, name: result.run.name, target: result.target.url }
    const cases = casesOf(entry)
    const verdicts = { passed: cases.filter((c) => c.ok).length, failed: cases.filter((c) => !c.ok).length, list: cases }
    if (entry.kind === 'capacity') {
      const r = entry.result
      return { ...head, outcome: r.outcome, vary: r.vary ?? 'clients', capacity: r.capacity, answer: r.answer, steps: r.steps.length, slo: r.slo, verdicts }
    }
    const r = entry.result
    const sum = (/** @type {(d: import('../../lib/schema/result-schema.js').DistributionResult) => number} */ pick) =>
      r.distributions.reduce((s, d) => s + pick(d), 0)
    const p99 = worstP99(r)
    return {
      ...head,
      clients: { target: sum((d) => d.clients.target), connected: sum((d) => d.clients.connected), failed: sum((d) => d.clients.failed) },
      deliveries: { expected: sum((d) => missedDeliveries(d).expected), missing: sum((d) => missedDeliveries(d).missing) },
      delays: { relativeP99Ms: p99.relative, absoluteP99Ms: p99.absolute },
      verdicts
    }
  })
  return { tool: { name: 'ioswarm', version }, command, ok: exitCode === 0, exitCode, results }
}

/**
 * Checks before a run starts that the folders of --junit and --summary-json can be written,
 * so a long run does not end in a usage error.
 * @param {{ junit?: string, summaryJson?: string }} paths
 */
export async function checkCiPaths (paths) {
  for (const [flag, path] of /** @type {const} */ ([['--junit', paths.junit], ['--summary-json', paths.summaryJson]])) {
    if (path === undefined || path === null || path === '') continue
    const folder = dirname(resolve(String(path)))
    await access(folder, constants.W_OK).catch((error) => {
      throw invalidOption(flag, `cannot be written: ${/** @type {Error} */ (error).message}; nothing was started`)
    })
  }
}

/**
 * Writes --junit and --summary-json when given; a file that cannot be written is a usage error naming its flag.
 * @param {{ junit?: string, summaryJson?: string }} paths
 * @param {CiEntry[]} entries
 * @param {{ command: string, exitCode: number, version: string }} run
 * @returns {Promise<string[]>} the files written
 */
export async function writeCiOutputs (paths, entries, run) {
  const files = []
  const outputs = /** @type {const} */ ([
    ['--junit', paths.junit, () => junitXml(entries, run.command)],
    ['--summary-json', paths.summaryJson, () => `${JSON.stringify(summaryJson(entries, run), null, 2)}\n`]
  ])
  for (const [flag, path, text] of outputs) {
    if (path === undefined || path === null || path === '') continue
    const file = resolve(String(path))
    try {
      await writeFile(file, text())
    } catch (error) {
      throw invalidOption(flag, `cannot be written: ${/** @type {Error} */ (error).message}`)
    }
    files.push(file)
  }
  return files
}
