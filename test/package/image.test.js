/**
 * The container image (Dockerfile) without a container runtime: its instructions read, and
 * its install steps (infra/image.sh, the RUN lines that call it) run here in a temp folder
 * in place of the image's paths: the checkout packed, the tarball installed into a clean
 * prefix, then `ioswarm --version` from that prefix. The Kubernetes manifests name the image.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
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
  assert.deepEqual(runs, ['npm ci --no-audit --no-fund', 'sh infra/image.sh pack /pack', 'sh /tmp/image.sh install /pack/ioswarm-*.tgz /usr/local && rm -rf /pack /tmp/image.sh /root/.npm'])
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

test('the image\'s install steps in a clean prefix: pack the checkout, install the tarball, ioswarm --version', { timeout: 300000 }, async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-image-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  // The image's paths, here: its RUN lines run as written, on these folders.
  const paths = { '/pack': path.join(dir, 'pack'), '/usr/local': path.join(dir, 'prefix'), '/tmp/image.sh': 'infra/image.sh' }
  const steps = instructions().filter((s) => s.op === 'RUN' && s.args.includes('image.sh'))
    .map((s) => s.args.split(' && ')[0].replace(/\/pack|\/usr\/local|\/tmp\/image\.sh/g, (p) => paths[/** @type {keyof typeof paths} */ (p)]))
  assert.equal(steps.length, 2)
  for (const step of steps) await run('sh', ['-c', step], { cwd: ROOT, timeout: 240000 })

  const prefix = paths['/usr/local']
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
