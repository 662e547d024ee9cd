import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { VERSION } from '../../lib/version.js'
import { createRedisCollector } from '../../results/collector/index.js'
import { expectRefusals, runCli } from '../helpers/cli.js'
import { getRedisUrl } from '../helpers/redis.js'
import { writeFleet } from './fixtures/fleet-run.js'

const FAKE_SSH = fileURLToPath(new URL('./fixtures/fake-ssh', import.meta.url))
const SSH = 'ssh -o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=10 -o ServerAliveCountMax=3'

/**
 * A hosts file in a temp dir, removed after the test.
 * @param {import('node:test').TestContext} t
 * @param {string} text
 */
async function hostsFile (t, text) {
  const dir = await mkdtemp(join(tmpdir(), 'ioswarm-fleet-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'hosts.txt')
  await writeFile(file, text)
  return file
}

test('fleet up --dry-run prints the install and pm2 commands for every host, and runs nothing', async (t) => {
  const file = await hostsFile(t, '# rack A\ndeploy@sim-1\nsim-2:2222  # the slow one\n')
  const { code, stdout, stderr } = await runCli(t, ['bin/ioswarm.js', 'fleet', 'up', '-f', file, '--dry-run',
    '--url', 'http://10.0.0.5:3000', '--redis', 'redis://:pw@10.0.0.5:6379', '--run', 'r1',
    '--simulators', '2', '--total-clients', '2000', '-t', 'websocket:70,polling:30', '--ioswarm-version', VERSION])
  assert.equal(code, 0, stderr)
  const install = `'npm install --global --no-audit --no-fund ioswarm@${VERSION} && ` +
    '{ command -v pm2 >/dev/null 2>&1 || npm install --global --no-audit --no-fund pm2@7; }\''
  // Host k's simulators are parts k × 2 on of the fleet's 4 (IOSWARM_PART_BASE, IOSWARM_PARTS: simulate --part).
  const start = (/** @type {string} */ prefix, /** @type {number} */ base) =>
    '\'cd "$(npm root --global)/ioswarm" && { pm2 delete ioswarm-sim >/dev/null 2>&1 || true; } && ' +
    `env IOSWARM_PART_BASE=${base} IOSWARM_PARTS=4 IOSWARM_URL=http://10.0.0.5:3000 '\\''IOSWARM_REDIS=redis://:***@10.0.0.5:6379'\\'' ` +
    'IOSWARM_RUN=r1 IOSWARM_SIMULATORS=2 ' +
    `IOSWARM_CLIENTS=500 IOSWARM_TRANSPORT=websocket:70,polling:30 IOSWARM_ID_PREFIX=${prefix} pm2 start infra/ecosystem.config.cjs --only ioswarm-sim'`
  assert.equal(stdout, [
    `deploy@sim-1: ${SSH} -- deploy@sim-1 ${install}`,
    `sim-2:2222: ${SSH} -p 2222 -- sim-2 ${install}`,
    `deploy@sim-1: ${SSH} -- deploy@sim-1 ${start('sim-1', 0)}`,
    `sim-2:2222: ${SSH} -p 2222 -- sim-2 ${start('sim-2-2222', 2)}`,
    ''
  ].join('\n'))
  assert.ok(!stdout.includes('pw@'), 'the Redis password is masked')
})

test('fleet up: --clients and --max-clients are the whole fleet\'s, a share to each simulator; ' +
  'a bare --clients with several is refused with both readings', async (t) => {
  const file = await hostsFile(t, 'sim-1\nsim-2\n')
  const up = (/** @type {string[]} */ more) => runCli(t, ['bin/ioswarm.js', 'fleet', 'up', '-f', file, '--dry-run', '--url', 'http://10.0.0.5:3000',
    '--redis', 'redis://10.0.0.5:6379', '--run', 'r1', '--simulators', '2', '--ioswarm-version', VERSION, ...more])
  const bare = await up(['--clients', '500'])
  assert.equal(bare.code, 2, bare.stderr)
  assert.match(
    bare.stderr,
    new RegExp(/--clients 500 with 2 hosts × --simulators 2 has two readings: 4 simulators × 500 = 2,000 clients \(the old reading: /.source +
      /--clients-per-simulator 500\), or 500 clients in all, 125 per simulator \(the new one: --total-clients 500\)/.source)
  )
  assert.equal(bare.stdout, '', 'no host touched')
  const each = await up(['--clients-per-simulator', '500', '--max-clients', '3000'])
  assert.equal(each.code, 0, each.stderr)
  assert.match(each.stdout, /IOSWARM_CLIENTS=500 IOSWARM_MAX_CLIENTS=750 /, 'room for 3,000 over the 4 simulators')
  const uneven = await up(['--total-clients', '1001'])
  assert.equal(uneven.code, 2, uneven.stderr)
  assert.match(uneven.stderr, /--total-clients 1001 does not split evenly over 2 hosts × --simulators 2 = 4 simulators/)
  const small = await up(['--total-clients', '400', '--max-clients', '200'])
  assert.equal(small.code, 2, small.stderr)
  assert.match(small.stderr, /--max-clients must be at least the clients/)
  // A profile's targets are the whole swarm's: every simulator gets it whole with its --part,
  // and follows its slice (the simulator's side: test/simulator/processes/partition.test.js).
  const phased = await up(['--phases', 'ramp 10s to 400, hold 1m'])
  assert.equal(phased.code, 0, phased.stderr)
  assert.match(phased.stdout, /IOSWARM_PART_BASE=2 IOSWARM_PARTS=4 .*'\\''IOSWARM_PHASES=ramp 10s to 400, hold 1m'\\''/)
  assert.ok(!phased.stdout.includes('IOSWARM_CLIENTS='), 'the profile sets the clients')
})

test('fleet up deploys this checkout by default: packed here, copied to each host over ssh, installed from the copy', async (t) => {
  const { code, stdout, stderr } = await runCli(t, ['bin/ioswarm.js', 'fleet', 'up', '--hosts', 'h1', '--dry-run',
    '--url', 'http://10.0.0.5:3000', '--redis', 'redis://10.0.0.5:6379', '--run', 'r1'])
  assert.equal(code, 0, stderr)
  const [copy, install] = stdout.split('\n')
  assert.ok(
    copy.startsWith('h1: ssh ') && copy.includes(` -- h1 'sh -c '\\''cat > /tmp/ioswarm-${VERSION}.tgz'\\''' < `) && copy.endsWith(`ioswarm-${VERSION}.tgz'`),
    copy
  )
  assert.match(install, new RegExp(`npm install --global --no-audit --no-fund /tmp/ioswarm-${VERSION}\\.tgz`))
})

test('fleet up --dry-run never shows the Redis password or the server token', async (t) => {
  const { code, stdout, stderr } = await runCli(t, ['bin/ioswarm.js', 'fleet', 'up', '--hosts', 'h1', '--dry-run', '--apps', 'sim,server',
    '--url', 'http://10.0.0.5:3000', '--redis', 'rediss://ops:Pa55w0rd@10.0.0.5:6380/2', '--run', 'r1', '--token', 'T0ken-42'])
  assert.equal(code, 0, stderr)
  assert.ok(!/Pa55w0rd|T0ken-42/.test(stdout), stdout)
  assert.match(stdout, /'\\''IOSWARM_REDIS=rediss:\/\/ops:\*\*\*@10\.0\.0\.5:6380\/2'\\''/)
  assert.match(stdout, /'\\''IOSWARM_TOKEN=\*\*\*'\\'' IOSWARM_ID_PREFIX=h1 pm2 start infra\/ecosystem\.config\.cjs --only ioswarm-sim,ioswarm-server'$/m)
})

test('fleet up checks what every host would be given: a bad --engine or --run exits 2 before any host is touched', async (t) => {
  const base = ['bin/ioswarm.js', 'fleet', 'up', '--hosts', 'h1', '--ssh', FAKE_SSH, '--url', 'http://10.0.0.5:3000', '--redis', 'redis://10.0.0.5:6379']
  await expectRefusals(t, base, [
    [['--run', 'r1', '--engine', 'leen'], /--engine must be one of sio, lean, got "leen"/],
    [['--run', 'has spaces'], /--run must be 1 to 100 letters/]
  ], { noStdout: true })
})

test('fleet exec --dry-run lines are exactly what runs: pasted into a shell, hostile words arrive intact', async (t) => {
  const words = ["it's", '$(echo INJECTED)', '`echo INJECTED`', 'a b', '*', '~', '-n', '\\', '"', '', '!', 'x;echo INJECTED', 'line\nbreak']
  const { code, stdout, stderr } = await runCli(t, [
    'bin/ioswarm.js',
    'fleet',
    'exec',
    '--hosts',
    'u@h1,h2:2200',
    '--ssh',
    FAKE_SSH,
    '--dry-run',
    '--',
    'printf',
    '[%s]\\n',
    ...words
  ])
  assert.equal(code, 0, stderr)
  const lines = stdout.split('\n').slice(0, -1)
  assert.equal(lines.length, 2, 'one line per host')
  assert.ok(lines[0].startsWith(`u@h1: ${FAKE_SSH} -o BatchMode=yes`))
  assert.ok(lines[1].startsWith('h2:2200: ') && lines[1].includes(' -p 2200 -- h2 '))
  for (const line of lines) {
    // $'…' words (the newline) need bash; the fake ssh then runs the command with sh.
    const run = spawnSync('bash', ['-c', line.slice(line.indexOf(': ') + 2)], { encoding: 'utf8' })
    assert.equal(run.status, 0, run.stderr)
    assert.equal(run.stdout, words.map((w) => `[${w}]\n`).join(''))
  }
})

test('the fleet commands\' ssh timeout is --ssh-connect-timeout; ' +
  '--connect-timeout (run\'s wait for clients) is refused there with both readings', async (t) => {
  const timed = await runCli(t, [
    'bin/ioswarm.js', 'fleet', 'exec', '--hosts', 'h1', '--ssh', FAKE_SSH, '--ssh-connect-timeout', '3s', '--dry-run',
    '--', 'uptime'
  ])
  assert.equal(timed.code, 0, timed.stderr)
  assert.match(timed.stdout, /^h1: \S+ -o BatchMode=yes -o ConnectTimeout=3 /)
  const old = await runCli(t, ['bin/ioswarm.js', 'fleet', 'exec', '--hosts', 'h1', '--ssh', FAKE_SSH, '--connect-timeout', '3s', '--dry-run', '--', 'uptime'])
  assert.equal(old.code, 2)
  assert.equal(old.stdout, '')
  assert.match(
    old.stderr,
    new RegExp(/^ioswarm: --connect-timeout 3s has two readings: ssh's ConnectTimeout per host \(what it meant on the fleet commands: /.source +
      /--ssh-connect-timeout 3s\), or how long clients may take past the ramp .*say --ssh-connect-timeout$/.source, 'm')
  )
})

test('hosts-file mistakes exit 2 naming the file and line; nothing runs', async (t) => {
  const file = await hostsFile(t, 'good-host\n\n-oProxyCommand=touch\n')
  const bad = await runCli(t, ['bin/ioswarm.js', 'fleet', 'exec', '-f', file, '--ssh', FAKE_SSH, '--', 'echo', 'ran'])
  assert.equal(bad.code, 2)
  assert.equal(bad.stdout, '')
  assert.match(bad.stderr, new RegExp(`^ioswarm: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:3: bad host "-oProxyCommand=touch"`))
  const none = await runCli(t, ['bin/ioswarm.js', 'fleet', 'down', '--dry-run'])
  assert.equal(none.code, 2)
  assert.match(none.stderr, /--hosts-file or --hosts is required/)
  const noCommand = await runCli(t, ['bin/ioswarm.js', 'fleet', 'exec', '--hosts', 'a'])
  assert.equal(noCommand.code, 2)
  assert.match(noCommand.stderr, /exec needs a command after --/)
})

test('fleet exec gathers every host\'s output prefixed by host, and exits 1 when any host failed', async (t) => {
  const file = await hostsFile(t, 'h1\nu@h2\ndown-3\n')
  const script = 'echo "hello from $FAKE_SSH_HOST"; echo "warn $FAKE_SSH_HOST" >&2; [ "$FAKE_SSH_HOST" != u@h2 ] || exit 4'
  const failed = await runCli(t, ['bin/ioswarm.js', 'fleet', 'exec', '-f', file, '--ssh', FAKE_SSH, '--', 'sh', '-c', script])
  assert.equal(failed.code, 1)
  assert.deepEqual(failed.stdout.split('\n').filter(Boolean).sort(), ['h1: hello from h1', 'u@h2: hello from u@h2'])
  assert.match(failed.stderr, /^u@h2: warn u@h2$/m)
  assert.match(failed.stderr, /^u@h2: exec failed: exit 4$/m)
  assert.match(failed.stderr, /^down-3: ssh: connect to host down-3 port 22: Connection refused$/m)
  assert.match(failed.stderr, /^ioswarm fleet exec: 1 of 3 hosts ok; failed: /m)

  const ok = await runCli(t, ['bin/ioswarm.js', 'fleet', 'exec', '--hosts', 'h1,h2', '--ssh', FAKE_SSH, '--', 'echo', 'fine'])
  assert.equal(ok.code, 0, ok.stderr)
  assert.deepEqual(ok.stdout.split('\n').filter(Boolean).sort(), ['h1: fine', 'h2: fine'])
  assert.match(ok.stderr, /^ioswarm fleet exec: 2 of 2 hosts ok$/m)
})

test('fleet status reads the run from Redis', async (t) => {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return
  const runId = `fleet-cli-${randomUUID()}`
  const collector = await createRedisCollector({ redisUrl })
  t.after(async () => {
    await collector.deleteRun(runId)
    await collector.close()
  })
  await writeFleet(collector, runId)
  const text = await runCli(t, ['bin/ioswarm.js', 'fleet', 'status', '--redis', redisUrl, '--run', runId])
  assert.equal(text.code, 0, text.stderr)
  assert.match(text.stdout, /^host-3: 0\/1 alive$/m)
  const json = await runCli(t, ['bin/ioswarm.js', 'fleet', 'status', '--redis', redisUrl, '--run', runId, '--json'])
  assert.equal(json.code, 0, json.stderr)
  assert.deepEqual(JSON.parse(json.stdout).totals, { alive: 1, finished: 1, stale: 1, clientsConnected: 198, clientsTarget: 600 })
})

test('fleet up copies the simulators\' feeder and scenario to every host and points them there; several values of an option travel one per line', async (t) => {
  const file = await hostsFile(t, 'sim-1\n')
  const dir = await mkdtemp(join(tmpdir(), 'ioswarm-fleet-files-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await writeFile(join(dir, 'users.csv'), 'user,token\nu0,t0\n')
  await writeFile(join(dir, 'chat.mjs'), 'export function onConnect () {}\n')
  const { code, stdout, stderr } = await runCli(t, [
    'bin/ioswarm.js', 'fleet', 'up', '-f', file, '--dry-run', '--url', 'http://10.0.0.5:3000', '--redis', 'redis://10.0.0.5:6379', '--run', 'r7',
    '--feeder', join(dir, 'users.csv'), '--scenario', join(dir, 'chat.mjs'), '--auth', '{"token":"{{row.token}}"}',
    '--header', 'X-A: 1', '--header', 'X-B: {{i}}', '--ioswarm-version', VERSION
  ])
  assert.equal(code, 0, stderr)
  const lines = stdout.trim().split('\n')
  assert.match(lines[0], /^sim-1: ssh .* 'sh -c '\\''mkdir -p \/tmp\/ioswarm-r7 && cat > \/tmp\/ioswarm-r7\/feeder-users\.csv'\\''' < .*users\.csv$/)
  assert.match(lines[1], /cat > \/tmp\/ioswarm-r7\/scenario-chat\.mjs'\\''' < .*chat\.mjs$/)
  const start = lines.at(-1) ?? ''
  assert.match(start, /IOSWARM_FEEDER=\/tmp\/ioswarm-r7\/feeder-users\.csv/)
  assert.match(start, /IOSWARM_SCENARIO=\/tmp\/ioswarm-r7\/scenario-chat\.mjs/)
  // One variable, a value per line (shown as $'…\n…' by the dry run's quoting).
  assert.ok(start.includes('IOSWARM_HEADER=X-A: 1\\nX-B: {{i}}'), start)
})
