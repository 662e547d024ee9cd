import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { runCommand } from '../../../infra/fleet/exec.js'
import { parseHostsList, parseHostsText } from '../../../infra/fleet/hosts.js'
import { downCommand, formatPlan, idPrefixes, installCommand, planDown, planExec, planUp, sshArgv, startCommand } from '../../../infra/fleet/plan.js'

const FAKE_SSH = fileURLToPath(new URL('../fixtures/fake-ssh', import.meta.url))

const hosts = parseHostsText('deploy@sim-1\nsim-2:2222\n[::1]:22\n', 'hosts.txt')
const SSH = ['ssh', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=10', '-o', 'ServerAliveInterval=10', '-o', 'ServerAliveCountMax=3']

test('sshArgv: batch mode, timeouts, -p only when a port is given, -- before the destination', () => {
  assert.deepEqual(sshArgv(hosts[0], 'uptime'), [...SSH, '--', 'deploy@sim-1', 'uptime'])
  assert.deepEqual(sshArgv(hosts[1], 'uptime', { ssh: '/opt/ssh', connectTimeoutS: 3, sshOptions: ['-o', 'Port=1'] }),
    [
      '/opt/ssh', '-o', 'BatchMode=yes', '-o', 'ConnectTimeout=3', '-o', 'ServerAliveInterval=10', '-o', 'ServerAliveCountMax=3', '-o', 'Port=1',
      '-p', '2222', '--', 'sim-2', 'uptime'
    ])
  assert.deepEqual(sshArgv(hosts[2], 'x').slice(-5), ['-p', '22', '--', '::1', 'x'], 'IPv6 without brackets, as ssh wants it')
})

test('the remote commands, exactly', () => {
  assert.equal(installCommand('ioswarm@0.1.0'),
    'npm install --global --no-audit --no-fund ioswarm@0.1.0 && { command -v pm2 >/dev/null 2>&1 || npm install --global --no-audit --no-fund pm2@7; }')
  assert.equal(installCommand('git+https://example.com/a b.git'),
    "npm install --global --no-audit --no-fund 'git+https://example.com/a b.git' && { command -v pm2 >/dev/null 2>&1 || npm install --global --no-audit --no-fund pm2@7; }")
  assert.equal(startCommand(['sim'], { IOSWARM_RUN: 'r1', IOSWARM_URL: "http://x/'$(id)" }),
    'cd "$(npm root --global)/ioswarm" && { pm2 delete ioswarm-sim >/dev/null 2>&1 || true; } && ' +
    "env IOSWARM_RUN=r1 'IOSWARM_URL=http://x/'\\''$(id)' pm2 start infra/ecosystem.config.cjs --only ioswarm-sim")
  assert.equal(startCommand(['sim', 'server'], {}),
    'cd "$(npm root --global)/ioswarm" && { pm2 delete ioswarm-sim ioswarm-server >/dev/null 2>&1 || true; } && env pm2 start infra/ecosystem.config.cjs --only ioswarm-sim,ioswarm-server')
  assert.equal(downCommand(), 'pm2 delete ioswarm')
})

test('simulator id prefixes are id-safe and unique across the fleet', () => {
  assert.deepEqual(idPrefixes(hosts), ['sim-1', 'sim-2-2222', '1-22'])
  const twins = parseHostsText('a@h\nb@h\nh:22', 'f')
  assert.deepEqual(idPrefixes(twins), ['h-1', 'h-2', 'h-22'])
})

test('planUp: install everywhere, then start with each host\'s id prefix; the dry run masks secrets', () => {
  const env = { IOSWARM_REDIS: 'redis://:s3cret@10.0.0.1:6379', IOSWARM_RUN: 'r1' }
  const steps = planUp(hosts.slice(0, 2), { install: 'ioswarm@0.1.0', apps: ['sim'], env, shownEnv: { ...env, IOSWARM_REDIS: 'redis://:***@10.0.0.1:6379' } })
  assert.deepEqual(steps.map((s) => s.name), ['install', 'start'])
  const start = steps[1].commands[1]
  assert.ok(String(start.argv.at(-1)).includes('IOSWARM_REDIS=redis://:s3cret@10.0.0.1:6379'), 'the real command has the password')
  assert.ok(String(start.argv.at(-1)).endsWith('IOSWARM_RUN=r1 IOSWARM_ID_PREFIX=sim-2-2222 pm2 start infra/ecosystem.config.cjs --only ioswarm-sim'))
  const text = formatPlan(steps)
  assert.ok(!text.includes('s3cret'), text)
  assert.equal(text.split('\n').length, 4)
  assert.match(text.split('\n')[0], /^deploy@sim-1: ssh -o BatchMode=yes .* -- deploy@sim-1 'npm install --global/)
  assert.match(text.split('\n')[3], /^sim-2:2222: ssh .* -p 2222 -- sim-2 'cd "\$\(npm root --global\)\/ioswarm" && /)
})

test('planExec quotes every word for the remote shell; planDown deletes the namespace', () => {
  const [step] = planExec(hosts.slice(0, 1), ['echo', "it's", '$(id)'])
  assert.equal(step.commands[0].argv.at(-1), "echo 'it'\\''s' '$(id)'")
  assert.equal(formatPlan(planDown(hosts.slice(1, 2))), `sim-2:2222: ${SSH.join(' ')} -p 2222 -- sim-2 'pm2 delete ioswarm'`)
})

test('fleet up by default copies a package of this checkout to each host over ssh, then installs it from there', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-copy-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const tarball = path.join(dir, 'local.tgz')
  await writeFile(tarball, Buffer.from([0x1f, 0x8b, 0, 1, 2, 3, 255]))
  const remote = path.join(dir, 'on-host.tgz')
  const [host] = parseHostsList('h1')
  const steps = planUp([host], { install: remote, tarball, apps: ['sim'], env: {}, ssh: FAKE_SSH })
  assert.deepEqual(steps.map((s) => s.name), ['copy', 'install', 'start'])
  assert.match(formatPlan(steps).split('\n')[0], / < .*local\.tgz$/)
  assert.match(formatPlan(steps).split('\n')[1], /npm install --global --no-audit --no-fund .*on-host\.tgz/)
  const copied = await runCommand('copy', steps[0].commands[0])
  assert.equal(copied.code, 0, copied.stderr)
  assert.deepEqual(await readFile(remote), await readFile(tarball), 'the file arrived whole through ssh\'s stdin')
})
