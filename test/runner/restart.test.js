/**
 * `run --restart-server-at`: the reference server restarted mid-run on its port; the run goes
 * on, the storm is measured by the simulators, and the storm thresholds judge it.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runCli } from '../helpers/cli.js'

for (const signal of ['TERM', 'KILL']) {
  // 5 s, not 2: a simulator child that needs more than 2 s to connect on a loaded machine saw no
  // storm at all (the server was back before it came); 20 rounds of 500 ms run past the restart.
  test(`run --restart-server-at 5s --restart-signal ${signal}: the server comes back on its port, ` +
    'every client with it, the storm is measured and judged', async (t) => {
    const out = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-restart-'))
    t.after(() => rm(out, { recursive: true, force: true }))
    const { code, stderr } = await runCli(t, [
      'bin/ioswarm.js', 'run', '--simulators', '1', '--clients', '6', '--engine', 'lean', '--rounds', '20x500', '--ping-interval', '1s',
      '--ramp', '0', '--restart-server-at', '5s', '--restart-signal', signal, '--assert', 'unreturned=0', '--assert', 'recover.max<15s', '--out', out
    ], { timeoutMs: 90000 })
    assert.equal(code, 0, stderr)
    assert.match(stderr, new RegExp(`reference server restarted at 5 s \\(SIG${signal}\\): down \\d+ ms, now pid \\d+`))
    const result = JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8'))
    assert.equal(result.target.restarts.length, 1)
    assert.ok(result.target.restarts[0].downMs > 0)
    const [storm] = result.distributions[0].clients.storms
    assert.deepEqual([storm.dropped, storm.back, storm.simulator], [6, 6, '1x6-sim1'])
    assert.ok(storm.endedMs > 0)
    // A restart keeps no session: none recovered; gap deliveries are counted (some, none: timing).
    assert.deepEqual([storm.recovered, storm.replayed, typeof storm.lost], [0, 0, 'number'])
    assert.deepEqual(result.thresholds.map((/** @type {any} */ v) => v.ok), [true, true])
    assert.equal(result.distributions[0].clients.connected, 6, 'every client back by the end')
  })
}

test('--restart-server-at with --target is a usage error naming the flag', async (t) => {
  const { code, stderr } = await runCli(t, ['bin/ioswarm.js', 'run', '--target', 'http://127.0.0.1:9', '--token', 't', '--restart-server-at', '30s'])
  assert.equal(code, 2)
  assert.match(stderr, /--restart-server-at restarts the reference server that run starts; with --target, restart your own server yourself/)
})
