import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { formatResult, MAX_OUTPUT_BYTES, runPlan, succeeded } from '../../../infra/fleet/exec.js'
import { parseHostsList } from '../../../infra/fleet/hosts.js'
import { planExec } from '../../../infra/fleet/plan.js'

const FAKE_SSH = fileURLToPath(new URL('../fixtures/fake-ssh', import.meta.url))

/** @param {import('node:test').TestContext} t */
async function tempDir (t) {
  const dir = await mkdtemp(join(tmpdir(), 'ioswarm-exec-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  return dir
}

test('every host runs at once: each waits for all the others to have started (a barrier)', async (t) => {
  const dir = await tempDir(t)
  const hosts = parseHostsList('h1,u@h2,h3:2200,h4')
  // Sequential execution could never pass the barrier; the loop gives up after ~10 s.
  const barrier =
    'touch "$D/$FAKE_SSH_HOST"; i=0; while [ "$(ls "$D" | wc -l)" -lt 4 ]; do i=$((i+1)); [ $i -lt 1000 ] || exit 9; sleep 0.01; done; echo "$FAKE_SSH_HOST passed"'
  const steps = planExec(hosts, ['env', `D=${dir}`, 'sh', '-c', barrier], { ssh: FAKE_SSH })
  /** @type {string[]} */
  const seen = []
  const results = await runPlan(steps, { onResult: (r) => seen.push(r.host) })
  assert.equal(results.length, 4)
  for (const r of results) assert.ok(succeeded(r), `${r.host}: ${r.code} ${r.stderr}`)
  assert.deepEqual(results.map((r) => r.stdout).sort(), ['h1 passed\n', 'h3 passed\n', 'h4 passed\n', 'u@h2 passed\n'])
  assert.deepEqual(seen.sort(), ['h1', 'h3:2200', 'h4', 'u@h2'])
})

test('--parallel 1 runs one host at a time: alone at the barrier, the first host gives up', async () => {
  const hosts = parseHostsList('h1,h2')
  const dir = await mkdtemp(join(tmpdir(), 'ioswarm-exec-'))
  try {
    const barrier = 'touch "$D/$FAKE_SSH_HOST"; i=0; while [ "$(ls "$D" | wc -l)" -lt 2 ]; do i=$((i+1)); [ $i -lt 30 ] || exit 9; sleep 0.01; done'
    const results = await runPlan(planExec(hosts, ['env', `D=${dir}`, 'sh', '-c', barrier], { ssh: FAKE_SSH }), { parallel: 1 })
    assert.equal(results[0].code, 9, 'the first host waited alone')
    assert.equal(results[1].code, 0, 'the second found the first one\'s mark')
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
})

test('exit codes and unreachable hosts are results; a failed host skips the later steps', async () => {
  const hosts = parseHostsList('ok1,bad,down-3')
  const first = planExec(hosts, ['sh', '-c', 'echo "out $FAKE_SSH_HOST"; echo "err $FAKE_SSH_HOST" >&2; [ "$FAKE_SSH_HOST" != bad ] || exit 3'], {
    ssh: FAKE_SSH
  })[0]
  const second = { ...planExec(hosts, ['echo', 'second'], { ssh: FAKE_SSH })[0], name: 'second' }
  const results = await runPlan([first, second])
  const by = (/** @type {string} */ step, /** @type {string} */ host) => {
    const found = results.find((r) => r.step === step && r.host === host)
    assert.ok(found, `${step} on ${host}`)
    return found
  }
  assert.equal(by('exec', 'ok1').code, 0)
  assert.equal(by('exec', 'bad').code, 3)
  assert.equal(by('exec', 'down-3').code, 255)
  assert.match(by('exec', 'down-3').stderr, /Connection refused/)
  assert.equal(by('second', 'ok1').stdout, 'second\n')
  assert.equal(by('second', 'bad').error, 'skipped: an earlier step failed on this host')
  assert.equal(by('second', 'down-3').code, null)

  const shown = formatResult(by('exec', 'bad'))
  assert.equal(shown.stdout, 'bad: out bad\n')
  assert.equal(shown.stderr, 'bad: err bad\nbad: exec failed: exit 3\n')
  assert.match(formatResult(by('exec', 'down-3')).stderr, /down-3: exec failed: exit 255 \(ssh could not connect/)
})

test('a missing ssh program fails every host with the reason', async () => {
  const results = await runPlan(planExec(parseHostsList('a,b'), ['true'], { ssh: '/nonexistent/ssh' }))
  assert.equal(results.length, 2)
  for (const r of results) assert.match(r.error ?? '', /^cannot run \/nonexistent\/ssh: .*ENOENT/)
})

test('output is bounded per host: the last MAX_OUTPUT_BYTES are kept', async () => {
  const bytes = MAX_OUTPUT_BYTES * 3
  const [result] = await runPlan(planExec(parseHostsList('big'), ['sh', '-c', `head -c ${bytes} /dev/zero | tr '\\0' x; echo END`], { ssh: FAKE_SSH }))
  assert.ok(succeeded(result))
  assert.equal(result.truncated, true)
  assert.equal(Buffer.byteLength(result.stdout), MAX_OUTPUT_BYTES)
  assert.ok(result.stdout.endsWith('xEND\n'))
})

test('an abort stops a host\'s command and everything it started', async () => {
  const controller = new AbortController()
  // A shell under the fake ssh's shell: both must go (the loop would run ~30 s otherwise).
  const loop = 'echo started; i=0; while [ $i -lt 3000 ]; do i=$((i+1)); sleep 0.01; done; echo finished'
  const pending = runPlan(planExec(parseHostsList('slow,down-1'), ['sh', '-c', loop], { ssh: FAKE_SSH }), {
    signal: controller.signal,
    onResult: (r) => { if (r.host === 'down-1') controller.abort() }
  })
  const [, result] = await pending
  assert.equal(result.host, 'slow')
  assert.equal(succeeded(result), false)
  assert.equal(result.error, 'aborted')
  assert.ok(!result.stdout.includes('finished'), result.stdout)
  const [again] = await runPlan(planExec(parseHostsList('late'), ['true'], { ssh: FAKE_SSH }), { signal: controller.signal })
  assert.equal(again.error, 'aborted', 'nothing starts once aborted')
})
