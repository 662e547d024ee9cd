/**
 * `run` and `fleet up` check every simulator option with the simulator's own normaliser
 * before they start anything: the same exit 2 and message `simulate` gives.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT, runCli } from '../helpers/cli.js'

test('run --engine lean --parser msgpack exits 2 naming --parser before a server or a simulator starts', async (t) => {
  const simulate = await runCli(t, ['bin/ioswarm.js', 'simulate', '--engine', 'lean', '--parser', 'msgpack', '-c', '1'])
  const run = await runCli(t, ['bin/ioswarm.js', 'run', '--engine', 'lean', '--parser', 'msgpack', '--out', join(ROOT, 'test/.artifacts/never')])
  assert.equal(run.code, 2, run.stderr)
  assert.equal(simulate.code, 2, simulate.stderr)
  assert.match(run.stderr, /^ioswarm: --parser msgpack works with --engine sio only/m)
  assert.equal(run.stderr.split('\n')[0], simulate.stderr.split('\n')[0], 'the simulator\'s own message')
  assert.doesNotMatch(run.stderr, /reference server|run run-/, 'nothing started')
  assert.throws(() => readdirSync(join(ROOT, 'test/.artifacts/never')), /ENOENT/, 'no results folder either')
})

test('fleet up --dry-run exits 2 on a simulator option the hosts would refuse, before any host', async (t) => {
  const { code, stdout, stderr } = await runCli(t, ['bin/ioswarm.js', 'fleet', 'up', '--hosts', 'h1', '--dry-run',
    '--url', 'http://10.0.0.5:3000', '--redis', 'redis://10.0.0.5:6379', '--run', 'r1', '--max-payload', '12'])
  assert.equal(code, 2, stderr)
  assert.match(stderr, /--max-payload must be from 1000 to 268435456 bytes, got "12"/)
  assert.equal(stdout, '')
})

test('no library code starts the CLI binary or writes argv lists of simulate flags', () => {
  const dirs = ['lib', 'simulator', 'runner', 'server', 'broadcaster', 'results', 'infra']
  for (const dir of dirs) {
    for (const file of readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.js'))) {
      const source = readFileSync(join(ROOT, dir, file), 'utf8')
      assert.doesNotMatch(source, /bin\/ioswarm\.js/, `${dir}/${file} starts the CLI`)
      // The shapes the old hand-written lists had: ['simulate', …], '--clients', String(n), …
      assert.doesNotMatch(
        source,
        /'simulate',\s*'--(?!quiet')|'--(clients|transport|engine|url|ramp)',\s*(String\(|ctx\.|options\.|o\.)/,
        `${dir}/${file} writes a simulate argv list`
      )
    }
  }
})
