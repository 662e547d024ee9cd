import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { parse, stringify } from 'yaml'
import { artilleryScript, DEFAULT_ARTILLERY_BIN, findArtilleryBin } from '../../bench/artillery-case.js'
import { waitFor } from '../helpers/wait.js'

test('the Artillery scenario: a lead-in, the baseline, a pause, then N users, each connecting and staying', () => {
  const script = parse(stringify(artilleryScript({ url: 'http://127.0.0.1:3000', transport: 'websocket', clients: 1000, baseline: 50, ratePerSec: 100 })))
  const [leadIn, first, pause, second] = script.config.phases
  assert.ok(leadIn.pause > 0 && pause.pause > 0)
  for (const [phase, users] of [[first, 50], [second, 950]]) {
    assert.ok(phase.rampTo === phase.arrivalRate && phase.rampTo === 100, 'a rampTo phase at the asked rate')
    assert.ok(phase.duration >= 2, 'Artillery ramps of one second tick without a delay')
    assert.ok(phase.duration * phase.arrivalRate > users, 'more arrivals than users; maxVusers caps them')
  }
  assert.deepEqual([first.maxVusers, second.maxVusers], [50, 1000])
  assert.deepEqual(script.config.socketio, { transports: ['websocket'] })
  const [scenario] = script.scenarios
  assert.equal(scenario.engine, 'socketio')
  const phasesS = leadIn.pause + first.duration + pause.pause + second.duration
  assert.ok(scenario.flow.length === 1 && scenario.flow[0].think > phasesS, 'users stay connected past the last phase')
})

test('no Artillery: a reason naming the path and how to install it', () => {
  const missing = findArtilleryBin('/nonexistent/artillery')
  assert.ok('skipped' in missing)
  assert.match(
    missing.skipped,
    new RegExp(/^no Artillery at \/nonexistent\/artillery \(from --artillery-bin\): /.source +
      /install it outside this package with PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm i --prefix \S+ artillery@2\.0\.21/.source)
  )
  assert.deepEqual(findArtilleryBin(process.execPath), { bin: process.execPath })
})

test('Artillery is looked for where a reader installs it: --artillery-bin, $ARTILLERY_BIN, else beside the checkout', (t) => {
  const checkout = fileURLToPath(new URL('../../', import.meta.url))
  assert.equal(DEFAULT_ARTILLERY_BIN, path.resolve(checkout, '../artillery/node_modules/.bin/artillery'), 'no one machine\'s absolute path')
  const saved = process.env.ARTILLERY_BIN
  t.after(() => { if (saved === undefined) delete process.env.ARTILLERY_BIN; else process.env.ARTILLERY_BIN = saved })
  process.env.ARTILLERY_BIN = process.execPath
  assert.deepEqual(findArtilleryBin(undefined), { bin: process.execPath })
  assert.ok('skipped' in findArtilleryBin('/nonexistent/artillery'), 'the flag wins')
  delete process.env.ARTILLERY_BIN
  const found = findArtilleryBin(undefined)
  if ('skipped' in found) {
    assert.match(found.skipped, /^no Artillery at \S+ \(from the default path\): .* npm i --prefix \.\.\/artillery artillery@2\.0\.21 run in the checkout/)
  } else assert.equal(found.bin, DEFAULT_ARTILLERY_BIN)
})

test('the GC preload: SIGUSR2 collects in a worker thread too, and does not end the process', async (t) => {
  // The worker's object can only go once a GC runs there (nothing else allocates enough to cause one); without the preload, SIGUSR2 ends the process; without the channel, it exits 3 after 5 s.
  const program = `
    const { Worker } = require('node:worker_threads')
    const worker = new Worker(\`
      const { parentPort } = require('node:worker_threads')
      const registry = new FinalizationRegistry(() => parentPort.postMessage('collected'))
      ;(() => { registry.register({ blob: new Array(1000).fill(1) }, 'x') })()
      parentPort.postMessage('ready')
      setTimeout(() => {}, 30000)
    \`, { eval: true })
    worker.on('message', (m) => {
      console.log(m)
      if (m === 'collected') process.exit(0)
      // Uncollected 5 s after the start: exit 3 (the worker would still be alive).
      if (m === 'ready') setTimeout(() => process.exit(3), 5000)
    })
  `
  const preload = fileURLToPath(new URL('../../bench/artillery-gc.cjs', import.meta.url))
  const child = spawn(process.execPath, ['-e', program], {
    env: { ...process.env, NODE_OPTIONS: `--expose-gc --require ${JSON.stringify(preload)}` },
    stdio: ['ignore', 'pipe', 'pipe']
  })
  t.after(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  let out = ''
  child.stdout.on('data', (d) => { out += d })
  child.stderr.on('data', (d) => { out += d })
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })))
  await waitFor(() => out.includes('ready'), { timeoutMs: 10000, message: () => `the worker to start (output: ${out})` })
  assert.doesNotMatch(out, /collected/, 'nothing collected before the signal')
  child.kill('SIGUSR2')
  assert.deepEqual(await exited, { code: 0, signal: null }, `output: ${out}`)
  assert.match(out, /collected/)
})
