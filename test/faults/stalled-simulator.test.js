/**
 * Fault: one of the runner's simulators hangs (SIGSTOP) in the middle of a run. The runner
 * must not wait for it forever: it goes stale within the heartbeat TTL, the later rounds
 * complete with the others, the runner says which simulator went stale and when, kills it
 * (a stopped process keeps a SIGTERM pending; only SIGKILL ends it) and writes a result
 * that marks it stale and keeps the reports it sent before it hung.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { runCli } from '../helpers/cli.js'
import { getRedisUrl } from '../helpers/redis.js'
import { waitFor } from '../helpers/wait.js'

const CLIENTS = 8
const ROUNDS = '2x200,2x200,2x200'
const STOPPED_ID = '3x8-sim2'

/**
 * The pids of a process's children, with their command lines (Linux /proc).
 * @param {number} ppid
 */
async function childrenOf (ppid) {
  const found = []
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      // Field 4 of stat is the parent pid; the command name (field 2) may hold spaces.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
      if (Number(fields[1]) !== ppid) continue
      found.push({ pid: Number(entry), state: fields[0], cmdline: readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0') })
    } catch {} // gone meanwhile
  }
  return found
}

/** @param {number} pid @returns {string | null} its state letter (T = stopped, Z = zombie), or null once gone */
function stateOf (pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0]
  } catch {
    return null
  }
}

/**
 * Runs `ioswarm run` with three simulators, SIGSTOPs the second one once round 1 is
 * reported, and returns what the runner did.
 * @param {import('node:test').TestContext} t
 * @param {string[]} extraArgs
 */
async function runWithStoppedSimulator (t, extraArgs) {
  const out = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-stalled-'))
  t.after(() => rm(out, { recursive: true, force: true }))
  /** @type {number[]} every child of the runner seen, killed after the test if still there */
  const seen = []
  t.after(() => {
    for (const pid of seen) {
      try { process.kill(pid, 'SIGKILL') } catch {}
    }
  })
  /** @type {{ pid: number, at: number } | null} */
  let stopped = null
  /** @type {Promise<void> | null} */
  let stopping = null
  const run = runCli(t, ['bin/ioswarm.js', 'run', '--simulators', '3', '--clients-per-simulator', String(CLIENTS), '--rounds', ROUNDS,
    '--ping-interval', '1s', '--ramp', '300ms', '--message-timeout', '2s', '--out', out, ...extraArgs], {
    timeoutMs: 90000,
    onStderr: (text, child) => {
      if (stopping || !/round 1: /.test(text)) return
      stopping = (async () => {
        const children = await childrenOf(/** @type {number} */ (child.pid))
        seen.push(...children.map((c) => c.pid))
        const sim = children.find((c) => c.cmdline.some((a) => a.endsWith('simulator/processes/child.js')) && c.cmdline.includes(STOPPED_ID))
        assert.ok(sim, `the runner's child ${STOPPED_ID} among ${JSON.stringify(children)}`)
        process.kill(sim.pid, 'SIGSTOP')
        await waitFor(() => stateOf(sim.pid) === 'T', { timeoutMs: 5000, message: `${STOPPED_ID} (pid ${sim.pid}) stopped` })
        stopped = { pid: sim.pid, at: Date.now() }
      })()
    }
  })
  const startedAt = Date.now()
  const done = await run
  const endedAt = Date.now()
  await stopping
  assert.ok(stopped, `a simulator was stopped; runner said: ${done.stderr}`)
  t.diagnostic(`run ${endedAt - startedAt} ms, of which ${endedAt - /** @type {{ at: number }} */ (stopped).at} ms after the SIGSTOP`)
  const result = JSON.parse(await readFile(path.join(out, 'result.json'), 'utf8'))
  return { ...done, stopped: /** @type {{ pid: number, at: number }} */ (stopped), endedAt, result }
}

/**
 * What every variant must show.
 * @param {Awaited<ReturnType<typeof runWithStoppedSimulator>>} r
 */
function assertStaleHandled (r) {
  const { stderr, stopped, result } = r
  // Bounded: stale within the 5 s heartbeat TTL, two short rounds, stop (about 7 s here);
  // less than the 20 s grace a SIGTERM gets, so that grace was not waited out.
  assert.ok(r.endedAt - stopped.at < 20000, `the runner ended ${r.endedAt - stopped.at} ms after the SIGSTOP`)
  assert.match(stderr, new RegExp(`simulator ${STOPPED_ID} \\(.*pid ${stopped.pid}\\) went stale: no heartbeat since \\d\\d:\\d\\d:\\d\\d`), stderr)
  assert.match(stderr, new RegExp(`${STOPPED_ID}.*killed \\(SIGKILL\\)`), stderr)
  assert.match(stderr, new RegExp(`stale simulators: ${STOPPED_ID}`), 'named in the summary')
  assert.match(
    stderr,
    /connected 16\/24 \(8 of them on 1 stale simulator, \d+ connected when last heard from\)/,
    'its clients are accounted for in the summary'
  )
  // Gone, and reaped by the runner (not a zombie left to init).
  assert.equal(stateOf(stopped.pid), null, `pid ${stopped.pid} is gone`)

  const [d] = result.distributions
  assert.deepEqual(d.simulatorList.map((/** @type {any} */ s) => [s.id, s.stale]), [['3x8-sim1', false], [STOPPED_ID, true], ['3x8-sim3', false]])
  assert.equal(d.simulatorList[1].pid, stopped.pid)
  assert.deepEqual(d.messages.map((/** @type {any} */ m) => m.id), ['1.1', '1.2', '2.1', '2.2', '3.1', '3.2'])
  for (const m of d.messages) {
    // Round 1 was reported by all three before the stop: its reports are kept.
    const simulators = m.round === 1 ? 3 : 2
    assert.equal(m.simulators, simulators, `${m.id} reported by ${simulators}`)
    assert.equal(m.received, simulators * CLIENTS, `${m.id} received`)
    assert.equal(m.missing, 0, `${m.id} missing`)
  }
}

test('embedded collector: a SIGSTOPped simulator goes stale, is killed, and the run finishes without it (exit 0 without --assert)', async (t) => {
  const r = await runWithStoppedSimulator(t, [])
  assert.equal(r.code, 0, r.stderr)
  assert.equal(r.result.run.collector, 'memory')
  assertStaleHandled(r)
})

test('Redis collector: the same, and --assert stale=0 fails with exit 3 naming it', async (t) => {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return
  const r = await runWithStoppedSimulator(t, ['--redis', redisUrl, '--assert', 'stale=0', '--assert', 'missing=0'])
  assert.equal(r.code, 3, r.stderr)
  assert.equal(r.result.run.collector, 'redis')
  assertStaleHandled(r)
  assert.deepEqual(r.result.thresholds.map((/** @type {any} */ v) => [v.expression, v.ok]), [['stale=0', false], ['missing=0', true]])
  assert.match(r.stderr, new RegExp(`stale 1 \\(${STOPPED_ID} in 3x8\\)`))
})
