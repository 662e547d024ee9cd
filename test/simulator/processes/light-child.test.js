import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { forkSimulator } from '../../../simulator/processes/spawn.js'
import { normalizeSimOptions } from '../../../simulator/sim-options.js'
import { inspectServer } from '../../../simulator/inspection/inspect.js'
import { moduleLogEnv, readModuleLog } from '../../helpers/modules-loaded.js'
import { startTestServer, waitForClients } from '../../helpers/swarm.js'

/**
 * What a simulator child without --otlp, --metrics-port, --redis, a YAML config, a CSV feeder
 * or --parser msgpack must never load (a process loads only what it uses): the packages of other commands and options,
 * and the folders of other commands (report and chart code, live metrics, the server, runner, fleet).
 */
const NOT_IN_A_SIMULATOR = ['@opentelemetry/api', '@opentelemetry/sdk-metrics', '@opentelemetry/exporter-metrics-otlp-http', 'prom-client', 'ioredis',
  'socket.io', 'pm2', 'chart.js', 'yargs', 'yaml', 'csv-parse', 'socket.io-msgpack-parser']
const NOT_IN_A_SIMULATOR_FOLDERS = ['results/report/', 'results/metrics/', 'server/', 'runner/', 'infra/', 'bin/']
/** The swarm's parts of --scenario, --node-from, --window and --session-lifetime: loaded with their flag only. */
const FLAG_PARTS = [
  'simulator/traffic/scenario-hooks.js', 'simulator/recording/node-tracker.js',
  'simulator/recording/window-recorder.js', 'simulator/swarm/churn.js'
]
/**
 * What a child reporting over IPC never loads: Redis' key names, URL redaction and clock (its
 * runner's collector has them), and the normaliser (it is handed normalised options).
 */
const NOT_OVER_IPC = ['lib/redis.js', 'lib/schema/collector-keys.js', 'lib/measure/clock-offset.js', 'simulator/sim-options.js']
/**
 * The options tables, every command's and the simulator's own: a child is handed normalised options and reads only the
 * constants and parsers of lib/values/option-values.js.
 * @param {string} file
 */
const isTable = (file) => file.startsWith('lib/cli-options/')
/**
 * What a child loads only once it has something to encode (its first closed message, its
 * result) or with --login, a login hook or its own collector (--redis, a standalone swarm): not
 * before its clients are connected. hdr-histogram-js's encoding (pako, base64-js) and its
 * WebAssembly build (@assemblyscript/loader, never used) cost 24 CommonJS files, ~300 KB.
 */
const NOT_BEFORE_CLIENTS = ['pako', 'base64-js', '@assemblyscript/loader']
const NOT_BEFORE_CLIENTS_FILES = ['results/collector/memory.js', 'results/collector/redis.js', 'results/merge/aggregate.js', 'simulator/sessions/login.js',
  'simulator/sessions/login-http.js']
/**
 * undici (95 files, ~15 MiB) is lean polling's with --http-client undici (and https://) and --login's: the child's own look at the
 * server before its swarm (the handshake probe, the first contact) goes over node:http.
 */
const UNDICI = 'undici'

/**
 * Runs a real simulator child (forked as `ioswarm run` forks them, reporting over IPC) with the
 * module log hook until its clients are connected, stops it, and returns what it had loaded
 * then (`connected`) and by its exit, and its result.
 * @param {import('node:test').TestContext} t
 * @param {Record<string, unknown>} input simulator options (url added)
 * @param {{ look?: boolean }} [spec] look: hand it the server as inspected here, as `ioswarm run` hands its one look over
 */
async function loadedBy (t, input, { look = false } = {}) {
  const server = await startTestServer(t, { pingIntervalMs: 1000 })
  const dir = mkdtempSync(path.join(tmpdir(), 'ioswarm-modules-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const log = path.join(dir, 'modules.log')
  const options = { ...normalizeSimOptions({ url: server.url, clients: 2, ramp: '0', duration: '60s', ...input }), id: 'light' }
  const child = forkSimulator(options, {
    link: { runId: 'light-run', ipc: true },
    env: moduleLogEnv(log),
    server: look ? await inspectServer(options) : null
  })
  t.after(() => child.stop(2000))
  await waitForClients(server, 2)
  const connected = readModuleLog(log)
  await child.stop()
  const { exitCode, result } = await child.outcome
  assert.equal(exitCode, 0, child.failure() ?? '')
  return { ...readModuleLog(log), connected, result }
}

test('a lean simulator child loads none of the optional parts: no metrics, Redis, OpenTelemetry, server, report, socket.io-client, undici', async (t) => {
  const { packages, files, connected } = await loadedBy(t, { engine: 'lean', transport: 'websocket' })
  // The log is real: it holds what the child did load, imported (its engine, the ws library) and
  // require()d (the histogram library).
  assert.ok(
    files.includes('simulator/engines/lean.js') && packages.has('ws') && packages.has('hdr-histogram-js'),
    `the log saw the child's own modules: ${[...packages].join(', ')}`
  )
  assert.deepEqual([...packages].filter((p) => NOT_IN_A_SIMULATOR.includes(p) || p === 'socket.io-client' || p === UNDICI), [])
  assert.deepEqual(files.filter((f) => NOT_IN_A_SIMULATOR_FOLDERS.some((folder) => f.startsWith(folder)) || f.startsWith('simulator/engines/sio')), [])
  assert.ok(files.includes('simulator/sessions/inspection-http.js'), 'the child looked at the server itself (over node:http)')
  assert.ok(files.includes('lib/values/option-values.js'), 'the options\' constants and parsers')
  assert.deepEqual(files.filter((f) => isTable(f) || FLAG_PARTS.includes(f) || NOT_OVER_IPC.includes(f)), [])
  // With its clients connected and no message yet: no histogram encoding, no collector, no login.
  assert.ok(connected.packages.has('ws') && connected.packages.has('hdr-histogram-js'), 'the log at that moment saw the engine and the histograms')
  assert.deepEqual([...connected.packages].filter((p) => NOT_BEFORE_CLIENTS.includes(p)), [])
  assert.deepEqual(connected.files.filter((f) => NOT_BEFORE_CLIENTS_FILES.includes(f)), [])
  // The log is read at that moment: the result, encoded at the stop, loaded the encoding.
  assert.ok(packages.has('pako'), 'the result\'s histograms are encoded at the end')
})

test('a sio simulator child loads socket.io-client, and still none of the optional parts, nor undici', async (t) => {
  const { packages, files } = await loadedBy(t, { engine: 'sio', transport: 'websocket' })
  assert.ok(packages.has('socket.io-client'), 'the sio engine is socket.io-client')
  assert.deepEqual([...packages].filter((p) => NOT_IN_A_SIMULATOR.includes(p) || p === UNDICI), [])
  const notHere = (/** @type {string} */ f) => isTable(f) || FLAG_PARTS.includes(f) || NOT_OVER_IPC.includes(f) ||
    NOT_IN_A_SIMULATOR_FOLDERS.some((folder) => f.startsWith(folder))
  assert.deepEqual(files.filter(notHere), [])
})

test('a lean polling child on the built-in HTTP client (the http:// default), handed its runner\'s look: no undici, no probes', async (t) => {
  const { packages, files } = await loadedBy(t, { engine: 'lean', transport: 'polling' }, { look: true })
  assert.ok(files.includes('simulator/engines/lean/polling/http-builtin.js'), 'its polls went over the built-in client')
  assert.deepEqual([...packages].filter((p) => NOT_IN_A_SIMULATOR.includes(p) || p === UNDICI), [])
  const probes = [
    'simulator/inspection/inspect-look.js', 'simulator/inspection/handshake.js', 'simulator/inspection/diagnose.js',
    'simulator/sessions/inspection.js', 'simulator/sessions/inspection-http.js'
  ]
  assert.deepEqual(files.filter((f) => probes.includes(f)), [], 'the look it was handed is the only one')
  assert.ok(
    files.includes('simulator/inspection/inspect.js') && !files.includes('simulator/processes/spawn.js'),
    'the child loads the inspection\'s entry, not the parent\'s side'
  )
})

test('a child given --scenario, --node-from, --window and --session-lifetime loads their parts, and its swarm runs them', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ioswarm-flag-parts-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const hooks = path.join(dir, 'hooks.js')
  writeFileSync(hooks, 'export function onConnect (socket, ctx) { ctx.count(\'joined\') }\n')
  const input = { engine: 'lean', transport: 'websocket', scenario: hooks, nodeFrom: 'header:x-node', window: '1s', sessionLifetime: '30s' }
  const { files, result } = await loadedBy(t, input)
  assert.deepEqual(FLAG_PARTS.filter((f) => files.includes(f)), FLAG_PARTS)
  // Its clients' onConnect may still be on its way when the stop comes: at least one ran.
  assert.ok((result?.custom?.counts.joined ?? 0) >= 1, 'the scenario\'s hooks ran')
  assert.ok(result?.nodes, 'the node tracker ran: result.nodes')
  assert.ok(Array.isArray(result?.windows) && result.windows.length > 0, 'the window book ran: result.windows')
  assert.ok(result?.churn, 'churn ran: result.churn')
})
