/**
 * The package, as the container image (Dockerfile) and a user install it, without a container
 * runtime: the Dockerfile's instructions read, and its install steps (infra/image.sh, the RUN
 * lines that call it) run here in a temp folder in place of the image's paths: the checkout
 * packed (`npm pack`, its prepack building the type declarations), the tarball installed into
 * a clean prefix, then `ioswarm --version` from that prefix. The same tarball (one pack: its
 * tsc is the slow part) is installed by name into a new project, imported as 'ioswarm' to run a
 * small swarm against its own reference server, with the type declarations shipped and the bin
 * working from there. The Kubernetes manifests name the image.
 */
import { after, test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync } from 'node:fs'
import { readdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { VERSION } from '../../lib/version.js'
import { ROOT } from '../helpers/cli.js'

const run = promisify(execFile)
const DOCKERFILE = readFileSync(path.join(ROOT, 'Dockerfile'), 'utf8')

/**
 * The Dockerfile's instructions, one per line (no continuation lines in it), comments left out.
 * @returns {{ op: string, args: string }[]}
 */
function instructions () {
  return DOCKERFILE.split('\n').filter((l) => l.trim() && !l.trimStart().startsWith('#')).map((l) => {
    assert.doesNotMatch(l, /\\$/, 'one instruction per line')
    const [, op, args] = /^(\w+)\s+(.*)$/.exec(l.trim()) ?? []
    return { op, args }
  })
}

test('the Dockerfile: two node:20-slim stages, npm ci then the pack step, the tarball installed as the node user, ioswarm the entrypoint', () => {
  const steps = instructions()
  assert.deepEqual(steps.filter((s) => s.op === 'FROM').map((s) => s.args), ['node:20-slim AS pack', 'node:20-slim'])
  const runs = steps.filter((s) => s.op === 'RUN').map((s) => s.args)
  assert.deepEqual(runs, [
    'npm ci --no-audit --no-fund',
    'sh infra/image.sh pack /pack',
    'sh /tmp/image.sh install /pack/ioswarm-*.tgz /usr/local && rm -rf /pack /tmp/image.sh /root/.npm'
  ])
  const final = steps.slice(steps.findLastIndex((s) => s.op === 'FROM'))
  assert.deepEqual(final.filter((s) => s.op === 'COPY').map((s) => s.args), ['--from=pack /pack/ /pack/', 'infra/image.sh /tmp/image.sh'])
  assert.equal(final.find((s) => s.op === 'USER')?.args, 'node')
  assert.equal(final.find((s) => s.op === 'ENTRYPOINT')?.args, '["ioswarm"]')
  const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n')
  for (const entry of ['node_modules', '.git', 'types']) assert.ok(ignored.includes(entry), `.dockerignore: ${entry}`)
})

test('the Kubernetes manifests run that image, never npx of an unpublished package; kustomize can point it at a registry', () => {
  const dir = path.join(ROOT, 'infra/k8s')
  for (const file of ['server.yaml', 'simulators.yaml', 'runner.yaml']) {
    const text = readFileSync(path.join(dir, file), 'utf8')
    assert.doesNotMatch(text, /npx|ioswarm@/, `${file}: no npx`)
    const images = [...text.matchAll(/^\s+image: (\S+)$/gm)].map((m) => m[1])
    assert.ok(images.length > 0 && images.every((i) => i === `ioswarm:${VERSION}`), `${file}: ${images.join(', ')}`)
  }
  assert.match(readFileSync(path.join(dir, 'kustomization.yaml'), 'utf8'), /^images:\n {2}- name: ioswarm\n/m)
  const readme = readFileSync(path.join(ROOT, 'infra/README.md'), 'utf8')
  assert.match(readme, /docker build -t ioswarm:0\.1\.0 \./)
  assert.match(readme, /push it to your registry/)
})

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

/**
 * The Dockerfile's RUN lines that call image.sh, as written (before their first &&), on
 * folders in `dir` in place of the image's paths: [the pack step, the install step].
 * @param {string} dir
 */
function imageSteps (dir) {
  const paths = { '/pack': path.join(dir, 'pack'), '/usr/local': path.join(dir, 'prefix'), '/tmp/image.sh': 'infra/image.sh' }
  const steps = instructions().filter((s) => s.op === 'RUN' && s.args.includes('image.sh'))
    .map((s) => s.args.split(' && ')[0].replace(/\/pack|\/usr\/local|\/tmp\/image\.sh/g, (p) => paths[/** @type {keyof typeof paths} */ (p)]))
  assert.equal(steps.length, 2)
  return { steps, prefix: paths['/usr/local'], tarball: path.join(paths['/pack'], `ioswarm-${VERSION}.tgz`) }
}

/** The temp folder of the pack and both installs, removed after the file's tests. */
const dir = mkdtempSync(path.join(os.tmpdir(), 'ioswarm-image-'))
after(() => rm(dir, { recursive: true, force: true }))
/** @type {Promise<ReturnType<typeof imageSteps> & { dir: string }> | null} */
let packing = null
/** The image's pack step, run once for this file: its tarball serves both installs below. */
function packed () {
  packing ??= (async () => {
    const image = imageSteps(dir)
    await run('sh', ['-c', image.steps[0]], { cwd: ROOT, timeout: 240000 })
    assert.deepEqual(await readdir(path.dirname(image.tarball)), [path.basename(image.tarball)], 'one tarball, named ioswarm-VERSION.tgz')
    return { ...image, dir }
  })()
  return packing
}

test('the image\'s install steps in a clean prefix: pack the checkout, install the tarball, ioswarm --version', { timeout: 300000 }, async () => {
  const { dir, steps, prefix } = await packed()
  await run('sh', ['-c', steps[1]], { cwd: ROOT, timeout: 240000 })

  const bin = path.join(prefix, 'bin/ioswarm')
  const { stdout } = await run(bin, ['--version'], { cwd: dir, timeout: 30000 })
  assert.equal(stdout.trim(), VERSION)
  const installed = path.join(prefix, 'lib/node_modules/ioswarm')
  assert.ok(existsSync(path.join(installed, 'types/index.d.ts')), 'the packed package, type declarations included')
  assert.ok(existsSync(path.join(installed, 'node_modules/socket.io-client')), 'production dependencies installed')
  assert.ok(!existsSync(path.join(installed, 'node_modules/typescript')), 'no dev dependencies')
  const help = await run(bin, ['simulate', '--help'], { cwd: dir, timeout: 30000 })
  assert.match(help.stdout, /ioswarm simulate -c N/)
})

test('npm pack → npm install the tarball → import \'ioswarm\' runs a swarm; types and the bin come with it', { timeout: 300000 }, async () => {
  const { dir, tarball } = await packed()
  const project = path.join(dir, 'app')
  await run('mkdir', ['-p', project])
  await writeFile(path.join(project, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }))
  // Dependencies from npm's cache when they are there (npm ci put them there), else the registry.
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', tarball], { cwd: project, timeout: 180000 })

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
