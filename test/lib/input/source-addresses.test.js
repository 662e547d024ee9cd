import { test } from 'node:test'
import assert from 'node:assert/strict'
import { checkLocalAddresses, parseSourceAddresses } from '../../../lib/input/source-addresses.js'
import { normalizeSimOptions } from '../../../simulator/sim-options.js'
import { upEnv } from '../../../infra/cli.js'
import { runCli } from '../../helpers/cli.js'

test('--source-address: comma lists, full and short IPv4 ranges, several flags; duplicates dropped', () => {
  assert.deepEqual(parseSourceAddresses('10.0.0.2,10.0.0.3', '--source-address'), ['10.0.0.2', '10.0.0.3'])
  assert.deepEqual(parseSourceAddresses(['10.0.0.254-10.0.1.1', '10.0.0.255'], '--source-address'), ['10.0.0.254', '10.0.0.255', '10.0.1.0', '10.0.1.1'])
  assert.deepEqual(parseSourceAddresses('127.0.0.2-4, ::1', '--source-address'), ['127.0.0.2', '127.0.0.3', '127.0.0.4', '::1'])
  assert.deepEqual(parseSourceAddresses(undefined, '--source-address'), [])
  assert.equal(parseSourceAddresses('10.0.0.0-10.0.3.255', '--source-address').length, 1024)
})

test('--source-address refuses hostnames, bad ranges and more than 1,024 addresses, naming the flag and what it takes', () => {
  const takes = /--source-address takes IP addresses of this host, comma-separated, and\/or IPv4 ranges such as 10\.0\.0\.2-10\.0\.0\.9/
  assert.throws(() => parseSourceAddresses('sim1.example.com', '--source-address'), takes)
  assert.throws(() => parseSourceAddresses('sim1.example.com', '--source-address'), /is not an IP address \(a hostname/)
  assert.throws(() => parseSourceAddresses('10.0.0.9-10.0.0.2', '--source-address'), /range "10\.0\.0\.9-10\.0\.0\.2" goes down/)
  assert.throws(() => parseSourceAddresses('10.0.0.0-10.0.4.0', '--source-address'), /range "10\.0\.0\.0-10\.0\.4\.0" has 1025 addresses; takes .*at most 1024/)
  assert.throws(() => parseSourceAddresses('10.0.0.0-10.0.3.255,10.0.9.9', '--source-address'), /gives more than 1024 addresses/)
  assert.throws(() => normalizeSimOptions({ sourceAddress: 'localhost' }), /--source-address takes/)
})

test('every address must be on an interface of this host (the loopback subnet counts); fleet up checks only the syntax', () => {
  const interfaces = {
    lo: [{ address: '127.0.0.1', netmask: '255.0.0.0', family: 'IPv4', mac: '', internal: true, cidr: '127.0.0.1/8' }],
    eth0: [{ address: '10.1.2.3', netmask: '255.255.255.0', family: 'IPv4', mac: '', internal: false, cidr: '10.1.2.3/24' }]
  }
  assert.doesNotThrow(() => checkLocalAddresses(['10.1.2.3', '127.0.0.9'], '--source-address', /** @type {any} */ (interfaces)))
  assert.throws(() => checkLocalAddresses(['10.1.2.3', '10.1.2.4'], '--source-address', /** @type {any} */ (interfaces)),
    new RegExp(/--source-address takes addresses of this host's interfaces; 10\.1\.2\.4 is on none \(this /.source +
      /host has 127\.0\.0\.1, 10\.1\.2\.3\)\. Add it first, e\.g\. `ip addr add 10\.1\.2\.4\/24 dev eth0`/.source))
  assert.throws(() => normalizeSimOptions({ sourceAddress: '192.0.2.77' }), /192\.0\.2\.77 is on none/)
  assert.deepEqual(normalizeSimOptions({ sourceAddress: '127.0.0.2-3' }).sourceAddresses, ['127.0.0.2', '127.0.0.3'])
  const env = upEnv({ url: 'http://10.0.0.5:3000', redis: 'redis://10.0.0.5:6379', run: 'r1', sourceAddress: '192.0.2.10-192.0.2.12' })
  assert.equal(env.IOSWARM_SOURCE_ADDRESS, '192.0.2.10-192.0.2.12', 'the hosts\' addresses, not this machine\'s')
  assert.throws(() => upEnv({ url: 'http://10.0.0.5:3000', redis: 'redis://10.0.0.5:6379', run: 'r1', sourceAddress: 'sim1' }), /--source-address takes/)
})

test('simulate and run exit 2 on an address that is not on this host, naming the flag', async (t) => {
  const [simulate, run] = await Promise.all([
    runCli(t, ['bin/ioswarm.js', 'simulate', '-c', '1', '--source-address', '192.0.2.1']),
    runCli(t, ['bin/ioswarm.js', 'run', '--source-address', '10.0.0.2-10.0.9.9'])
  ])
  assert.equal(simulate.code, 2, simulate.stderr)
  assert.match(simulate.stderr, /^ioswarm: --source-address takes addresses of this host's interfaces; 192\.0\.2\.1 is on none/m)
  assert.equal(run.code, 2, run.stderr)
  assert.match(run.stderr, /^ioswarm: --source-address range "10\.0\.0\.2-10\.0\.9\.9" has 2312 addresses/m)
})
