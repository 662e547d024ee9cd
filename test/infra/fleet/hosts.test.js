import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CODES, EXIT } from '../../../lib/errors.js'
import { parseHost, parseHostsList, parseHostsText, readHostsFile, sshDestination } from '../../../infra/fleet/hosts.js'

test('a hosts file: users, ports, IPv6, comments and blank lines', () => {
  const hosts = parseHostsText([
    '# the fleet',
    'deploy@sim-1.example.com',
    '  sim-2:2222   # second rack',
    '',
    '10.0.0.7',
    'root@[2001:db8::7]:22',
    '[fe80::1%eth0]'
  ].join('\n'), 'hosts.txt')
  assert.deepEqual(hosts, [
    { label: 'deploy@sim-1.example.com', user: 'deploy', host: 'sim-1.example.com', port: null },
    { label: 'sim-2:2222', user: null, host: 'sim-2', port: 2222 },
    { label: '10.0.0.7', user: null, host: '10.0.0.7', port: null },
    { label: 'root@[2001:db8::7]:22', user: 'root', host: '2001:db8::7', port: 22 },
    { label: '[fe80::1%eth0]', user: null, host: 'fe80::1%eth0', port: null }
  ])
  assert.equal(sshDestination(hosts[0]), 'deploy@sim-1.example.com')
  assert.equal(sshDestination(hosts[3]), 'root@2001:db8::7')
})

test('errors name the file and the line', () => {
  const cases = [
    ['a\n-oProxyCommand=x', 'hosts.txt:2: bad host "-oProxyCommand=x"'],
    ['a\n\n-b@c', 'hosts.txt:3: bad user name "-b"'],
    ['a:0', 'hosts.txt:1: bad port "0"'],
    ['a:70000', 'hosts.txt:1: bad port "70000"'],
    ['a:22x', 'hosts.txt:1: bad port "22x"'],
    ['2001:db8::1', 'hosts.txt:1: bad port'],
    ['a b', 'hosts.txt:1: one host per line'],
    ['a\nb\nA', 'hosts.txt:3: A is already on line 1'],
    ['x;rm', 'hosts.txt:1: bad host "x;rm"'],
    ['$(id)', 'hosts.txt:1: bad host "$(id)"'],
    ['# nothing\n\n', 'hosts.txt: no hosts']
  ]
  for (const [text, message] of cases) {
    assert.throws(() => parseHostsText(text, 'hosts.txt'), (/** @type {any} */ error) => {
      assert.equal(error.code, CODES.INPUT)
      assert.equal(error.exitCode, EXIT.USAGE)
      assert.ok(error.message.startsWith(message), `${JSON.stringify(text)}: ${error.message}`)
      return true
    })
  }
})

test('--hosts a,b,c: the same checks, errors name the entry', () => {
  assert.deepEqual(parseHostsList('a,u@b:2200').map((h) => h.label), ['a', 'u@b:2200'])
  assert.throws(() => parseHostsList('a,-x'), /^IoswarmError: --hosts entry 2: bad host "-x"/)
  assert.throws(() => parseHostsList(','), /--hosts no hosts/)
})

test('parseHost returns an error text rather than throwing', () => {
  assert.equal(typeof parseHost('[::1'), 'string')
  assert.equal(typeof parseHost('[notv6]'), 'string')
  assert.deepEqual(parseHost('h.'), { label: 'h.', user: null, host: 'h.', port: null })
})

test('readHostsFile reads a file and names it in errors', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'ioswarm-hosts-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const file = join(dir, 'hosts')
  await writeFile(file, 'a\r\nb\r\n')
  assert.deepEqual((await readHostsFile(file)).map((h) => h.host), ['a', 'b'])
  await assert.rejects(
    readHostsFile(join(dir, 'missing')),
    (/** @type {any} */ error) => error.code === CODES.INPUT && error.message.includes(join(dir, 'missing'))
  )
})
