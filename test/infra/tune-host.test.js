import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

// Only --check runs here: the changing mode writes to /etc and sysctls, never in a test.
const SCRIPT = fileURLToPath(new URL('../../infra/tune-host.sh', import.meta.url))

/**
 * Kernel settings as files, the way /proc/sys holds them.
 * @param {import('node:test').TestContext} t
 * @param {Record<string, string>} values e.g. { 'net/core/somaxconn': '4096' }
 */
function sysctlDir (t, values) {
  const dir = mkdtempSync(join(tmpdir(), 'ioswarm-sysctl-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  for (const [name, value] of Object.entries(values)) {
    mkdirSync(join(dir, name, '..'), { recursive: true })
    writeFileSync(join(dir, name), `${value}\n`)
  }
  return dir
}

const LINUX_DEFAULTS = { 'net/ipv4/ip_local_port_range': '32768\t60999', 'net/core/somaxconn': '4096', 'net/ipv4/tcp_tw_reuse': '2' }

/**
 * Runs `tune-host.sh --check …` with a hard open-file limit of `nofile`.
 * @param {string} dir
 * @param {string[]} args
 * @param {number} [nofile]
 */
function check (dir, args, nofile = 1024) {
  // `ulimit -n` sets the soft and the hard limit; lowering them needs no privilege.
  const out = spawnSync('sh', ['-c', `ulimit -n ${nofile} && exec "$0" --check "$@"`, SCRIPT, ...args], {
    encoding: 'utf8',
    env: { ...process.env, IOSW_SYSCTL_DIR: dir }
  })
  return { code: out.status, stdout: out.stdout, stderr: out.stderr }
}

test('a run that fits reports ok on every line and exits 0', (t) => {
  const { code, stdout } = check(sysctlDir(t, LINUX_DEFAULTS), ['--clients', '500'])
  assert.equal(code, 0)
  assert.match(stdout, /^ok {5}files: 500 clients per process need about 564 descriptors; the hard limit is 1024$/m)
  assert.match(stdout, /^ok {5}ports: 500 connections per destination; the ephemeral range 32768-60999 has 28232 ports$/m)
  assert.match(stdout, /^ok {5}backlog: net.core.somaxconn is 4096$/m)
  assert.match(stdout, /^ready: 500 clients in 1 process\(es\)$/m)
})

test('too few descriptors per process blocks, and says how many processes would do', (t) => {
  const dir = sysctlDir(t, LINUX_DEFAULTS)
  const blocked = check(dir, ['--clients', '2000'])
  assert.equal(blocked.code, 1)
  assert.match(blocked.stdout, /^BLOCK {2}files: 2000 clients per process need about 2064 descriptors, but the hard limit \(ulimit -Hn\) is 1024\.$/m)
  assert.match(blocked.stdout, /spread the clients over 3 or more processes/)
  assert.match(blocked.stdout, /^blocked: /m)
  assert.equal(check(dir, ['--clients', '2000', '--processes', '3']).code, 0)
})

test('more connections to one destination than ephemeral ports blocks; more destinations pass', (t) => {
  const dir = sysctlDir(t, LINUX_DEFAULTS)
  const blocked = check(dir, ['--clients', '30000', '--processes', '100'])
  assert.equal(blocked.code, 1)
  assert.match(blocked.stdout, /^BLOCK {2}ports: 30000 connections per destination address:port, but the ephemeral range 32768-60999 has 28232 ports\.$/m)
  assert.match(blocked.stdout, /spread clients over 2 or more destinations/)
  assert.equal(check(dir, ['--clients', '30000', '--processes', '100', '--destinations', '2']).code, 0)
})

test('polling counts two sockets per client and warns about TIME_WAIT without tcp_tw_reuse', (t) => {
  const dir = sysctlDir(t, { ...LINUX_DEFAULTS, 'net/ipv4/tcp_tw_reuse': '0' })
  const out = check(dir, ['--clients', '15000', '--processes', '100', '--transport', 'websocket:70,polling:30'])
  assert.equal(out.code, 1)
  assert.match(out.stdout, /ports: 30000 connections per destination/)
  assert.match(out.stdout, /^warn {3}ports: net.ipv4.tcp_tw_reuse is 0/m)
  assert.doesNotMatch(check(dir, ['--clients', '100']).stdout, /tcp_tw_reuse/, 'WebSocket alone does not care')
})

test('somaxconn below Node\'s backlog of 511 blocks; below 4096 only warns; unreadable settings are said so', (t) => {
  const low = check(sysctlDir(t, { ...LINUX_DEFAULTS, 'net/core/somaxconn': '128' }), ['--clients', '10'])
  assert.equal(low.code, 1)
  assert.match(low.stdout, /^BLOCK {2}backlog: net.core.somaxconn is 128, below Node's listen backlog of 511/m)
  const mid = check(sysctlDir(t, { ...LINUX_DEFAULTS, 'net/core/somaxconn': '1024' }), ['--clients', '10'])
  assert.equal(mid.code, 0)
  assert.match(mid.stdout, /^warn {3}backlog: net.core.somaxconn is 1024/m)
  const none = check(sysctlDir(t, {}), ['--clients', '10'])
  assert.equal(none.code, 0)
  assert.match(none.stdout, /^\? {6}ports: cannot read net.ipv4.ip_local_port_range; not checked$/m)
})

test('usage mistakes exit 2 and change nothing', (t) => {
  const dir = sysctlDir(t, LINUX_DEFAULTS)
  /** @type {[string[], RegExp][]} */
  const cases = [
    [[], /--check needs --clients N/],
    [['--clients', 'many'], /--clients must be a whole number of at least 1, got "many"/],
    [['--clients', '10', '--processes', '0'], /--processes must be a whole number/],
    [['--clients', '10', '--transport', 'carrier-pigeon'], /--transport must be websocket, polling, upgrade or a mix/],
    [['--clients', '10', '--fast'], /unknown argument "--fast"/],
    [['--clients'], /--clients needs a value/]
  ]
  for (const [args, message] of cases) {
    const out = check(dir, args)
    assert.equal(out.code, 2, `${args.join(' ')}: ${out.stderr}`)
    assert.match(out.stderr, message)
  }
})
