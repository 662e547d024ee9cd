/**
 * The package as a user installs it: `npm pack`, installed by name into a new project, then
 * imported as 'ioswarm' to run a small swarm against its own reference server, with the
 * type declarations shipped and the bin working from there.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { VERSION } from '../../lib/version.js'
import { ROOT } from '../helpers/cli.js'

const run = promisify(execFile)

const SCRIPT = `
import { startServer, runSwarm, runBroadcast, IoswarmError } from 'ioswarm'
import { attachProbe } from 'ioswarm/probe'
const server = await startServer({ port: 0, host: '127.0.0.1', token: 'pack-token', pingIntervalMs: 1000 })
let fired = false
const result = await runSwarm({ url: server.url, clients: 5, ramp: 0, duration: '4s', engine: 'lean' }, {
  onProgress: (p) => {
    if (fired || p.connected < 5) return
    fired = true
    runBroadcast({ url: server.url, token: 'pack-token', rounds: '1x100' })
  }
})
await server.close()
let usage = null
try { await runSwarm({ url: server.url, clients: 'many' }) } catch (error) { usage = error instanceof IoswarmError && error.exitCode }
process.stdout.write(JSON.stringify({ connected: result.clients.everConnected, received: result.messages.map((m) => m.received), usage, probe: typeof attachProbe }))
`

test('npm pack → npm install the tarball → import \'ioswarm\' runs a swarm; types and the bin come with it', { timeout: 240000 }, async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-pack-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await run('npm', ['pack', '--pack-destination', dir], { cwd: ROOT, timeout: 120000 })
  const [tarball] = (await readdir(dir)).filter((f) => f.endsWith('.tgz'))
  assert.equal(tarball, `ioswarm-${VERSION}.tgz`)
  const project = path.join(dir, 'app')
  await run('mkdir', ['-p', project])
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }))
  // Dependencies from npm's cache when they are there (npm ci put them there), else the registry.
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(dir, tarball)], { cwd: project, timeout: 180000 })

  const installed = path.join(project, 'node_modules/ioswarm')
  assert.ok(existsSync(path.join(installed, 'types/index.d.ts')), 'type declarations are shipped')
  assert.ok(existsSync(path.join(installed, 'types/server/probe/index.d.ts')))
  assert.ok(!existsSync(path.join(installed, 'test')) && !existsSync(path.join(installed, 'bench')), 'no tests or benchmarks in the package')

  await writeFile(path.join(project, 'swarm.js'), SCRIPT)
  const { stdout } = await run(process.execPath, ['swarm.js'], { cwd: project, timeout: 60000 })
  assert.deepEqual(JSON.parse(stdout), { connected: 5, received: [5], usage: 2, probe: 'function' })

  const bin = await run(path.join(project, 'node_modules/.bin/ioswarm'), ['--version'], { cwd: project, timeout: 30000 })
  assert.equal(bin.stdout.trim(), VERSION)
})
