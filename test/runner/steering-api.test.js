/**
 * `ioswarm run --dashboard` steered through its HTTP API (with the printed token), as a script
 * or CI job would: the whole swarm grows from 4 to 8 clients (the room --dashboard reserves by
 * default: twice the swarm, no --max-clients needed) and the reference server's own count follows; a new emit rate is taken; a value past the room is refused (409) and changes
 * nothing; stop ends the run with result.json and report.html written, every action in both.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { runCli } from '../helpers/cli.js'
import { waitFor } from '../helpers/wait.js'
import { request } from '../results/dashboard/sse-client.js'

test('run --dashboard: clients, emit-rate and stop through the HTTP API; the server follows; all in result.json and the report', async (t) => {
  const out = mkdtempSync(path.join(os.tmpdir(), 'ioswarm-steering-api-'))
  t.after(() => rmSync(out, { recursive: true, force: true }))
  const run = runCli(t, ['bin/ioswarm.js', 'run', '--dashboard', '--simulators', '2', '--clients-per-simulator', '2', '--rounds', 'none',
    '--hold', '120s', '--window', '1s', '--ping-interval', '1s', '--ramp', '200ms', '--emit', 'chat {"text":"hi"}', '--emit-rate', '4/s', '--event', 'chat',
    '--out', out], { timeoutMs: 120000 })
  const stderr = () => run.output().stderr
  let dashboard = ''
  await waitFor(() => (dashboard = /dashboard: (http:\S+)/.exec(stderr())?.[1] ?? ''), { timeoutMs: 60000, message: 'the dashboard line' })
  let server = ''
  await waitFor(() => (server = /reference server (http:\/\/\S+)/.exec(stderr())?.[1] ?? ''), { timeoutMs: 60000, message: 'the reference server line' })
  const token = new URL(dashboard).searchParams.get('token') ?? ''
  const connected = async () => Number((await request(new URL('/stats', server).href)).json.connected)
  /** @param {string} action @param {Record<string, unknown>} body */
  const act = (action, body) => request(new URL(`/api/${action}`, dashboard).href, { method: 'POST', body, headers: { authorization: `Bearer ${token}` } })
  await waitFor(async () => (await connected()) === 4, { timeoutMs: 60000, message: '4 connections' })

  const grown = await act('clients', { clients: 8 })
  assert.equal(grown.status, 200, JSON.stringify(grown.json))
  await waitFor(async () => (await connected()) === 8, { timeoutMs: 60000, message: 'the server counts 8 connections' })
  assert.equal((await act('emit-rate', { rate: '1/2s' })).status, 200)
  const tooMany = await act('clients', { clients: 9 })
  assert.equal(tooMany.status, 409)
  assert.match(tooMany.json.error, /room for 8 clients .*--max-clients 9 or more/)
  assert.equal(await connected(), 8, 'the refused resize changed nothing')
  assert.equal((await act('stop', {})).status, 200)

  const { code } = await run
  assert.equal(code, 0, stderr())
  assert.match(stderr(), /^dashboard: room for 8 clients: /m, 'the room is said at the start')
  assert.match(stderr(), /^action \d\d:\d\d:\d\d clients 8 by api: done \(8 clients over 2 simulators\)$/m)
  assert.match(stderr(), /^action \d\d:\d\d:\d\d clients 9 by api: refused: /m)
  const result = JSON.parse(readFileSync(path.join(out, 'result.json'), 'utf8'))
  assert.deepEqual(result.actions.map((/** @type {any} */ a) => [a.action, a.value, a.by, a.ok]), [
    ['clients', 8, 'api', true], ['emit-rate', '1/2s', 'api', true], ['clients', 9, 'api', false], ['stop', null, 'api', true]
  ])
  const report = readFileSync(path.join(out, 'report.html'), 'utf8')
  assert.match(report, /Steering actions/)
  assert.match(report, /clients 8 \(api\)/, 'the resize marked on the charts over time')
})
