import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseAllDocuments } from 'yaml'
import yargs from 'yargs'
import { VERSION } from '../../lib/version.js'
import { runCommand } from '../../runner/cli.js'
import { serveCommand } from '../../server/cli.js'
import { simulateCommand } from '../../simulator/cli.js'
import { normalizeSimOptions, partitionSwarm } from '../../simulator/index.js'
import { parseEmitters } from '../../lib/cli-options/tables/scenario.js'

const DIR = fileURLToPath(new URL('../../infra/k8s/', import.meta.url))
const FILES = readdirSync(DIR).filter((f) => f.endsWith('.yaml')).sort()
/** @type {{ file: string, doc: any }[]} */
const DOCS = FILES.flatMap((file) => parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((d) => {
  assert.deepEqual(d.errors, [], `${file} parses`)
  return { file, doc: d.toJS() }
}))
const COMMANDS = /** @type {Record<string, import('yargs').CommandModule<any, any>>} */ ({ simulate: simulateCommand, serve: serveCommand, run: runCommand })

/**
 * @param {string} kind
 * @param {string} name
 */
function find (kind, name) {
  const found = DOCS.find(({ doc }) => doc.kind === kind && doc.metadata?.name === name)
  assert.ok(found, `a ${kind} named ${name}`)
  return found.doc
}

/** @param {any} doc */
const podSpec = (doc) => doc.spec.template.spec

/** @param {any} doc */
const containers = (doc) => [...(podSpec(doc).initContainers ?? []), ...podSpec(doc).containers]

/**
 * The ioswarm command a container runs (`ioswarm <command>`, in argv or in an sh -c string) and
 * the version of its image (`ioswarm:V`, built by the Dockerfile).
 * @param {any} container
 */
function ioswarmCommand (container) {
  const words = [...(container.command ?? []), ...(container.args ?? [])].join(' ')
  const match = /(?:^|\s)ioswarm (\w+)/.exec(words)
  const image = /^ioswarm:(\S+)$/.exec(container.image ?? '')
  return match && image ? { version: image[1], command: match[1], words } : null
}

/**
 * The long option names of a CLI command, as IOSWARM_* variables (yargs' env prefix: upper snake case).
 * @param {string} name
 */
function envNames (name) {
  const y = yargs([])
  const builder = /** @type {(y: import('yargs').Argv) => unknown} */ (COMMANDS[name].builder)
  builder(y)
  return new Set(Object.keys(/** @type {any} */ (y).getOptions().key).filter((k) => k.length > 1).map((k) => `IOSWARM_${k.replaceAll('-', '_').toUpperCase()}`))
}

test('every manifest parses, has apiVersion, kind and an ioswarm- name; the kustomization lists every file', () => {
  for (const { file, doc } of DOCS) {
    assert.ok(doc.apiVersion && doc.kind, `${file}: apiVersion and kind`)
    if (doc.kind !== 'Kustomization') assert.match(doc.metadata?.name ?? '', /^ioswarm-[a-z-]+$/, `${file}: ${doc.kind} name`)
  }
  const kustomization = DOCS.find(({ doc }) => doc.kind === 'Kustomization')?.doc
  assert.deepEqual([...kustomization.resources].sort(), FILES.filter((f) => f !== 'kustomization.yaml'))
})

test('Services select their Deployment\'s pods and target a named container port', () => {
  for (const name of ['ioswarm-redis', 'ioswarm-server']) {
    const service = find('Service', name)
    const deployment = find('Deployment', name)
    const labels = deployment.spec.template.metadata.labels
    assert.deepEqual({ ...labels, ...deployment.spec.selector.matchLabels }, labels, `${name}: the selector matches the pod labels`)
    assert.deepEqual({ ...labels, ...service.spec.selector }, labels, `${name}: the Service selects the pods`)
    const ports = podSpec(deployment).containers.flatMap((/** @type {any} */ c) => c.ports ?? [])
    for (const port of service.spec.ports) {
      const target = ports.find((/** @type {any} */ p) => p.name === port.targetPort)
      assert.ok(target, `${name}: port ${port.name} targets a container port named ${port.targetPort}`)
      assert.equal(target.containerPort, port.port, `${name}: same port number inside and out`)
    }
  }
})

test('simulators are an Indexed Job: parallelism = completions = the runner\'s --expect-simulators; ids from JOB_COMPLETION_INDEX', () => {
  const job = find('Job', 'ioswarm-simulators')
  assert.equal(job.spec.completionMode, 'Indexed')
  assert.ok(Number.isInteger(job.spec.parallelism) && job.spec.parallelism > 0)
  assert.equal(job.spec.parallelism, job.spec.completions)
  assert.equal(podSpec(job).restartPolicy, 'Never')
  const sim = ioswarmCommand(podSpec(job).containers[0])
  assert.equal(sim?.command, 'simulate')
  assert.match(sim?.words ?? '', /--id "sim-\$\{JOB_COMPLETION_INDEX\}"/)

  const runner = find('Job', 'ioswarm-runner')
  const args = podSpec(runner).containers[0].args
  const flag = (/** @type {string} */ name) => args[args.indexOf(name) + 1]
  assert.equal(Number(flag('--expect-simulators')), job.spec.parallelism)
  assert.equal(flag('--simulators'), '0', 'the runner starts no simulators of its own')
})

test('each simulator pod is part JOB_COMPLETION_INDEX of `completions` (--part): the Job\'s client offsets and emitters are the one partition\'s', () => {
  const job = find('Job', 'ioswarm-simulators')
  const words = ioswarmCommand(podSpec(job).containers[0])?.words ?? ''
  const part = /--part \\?"\$\{JOB_COMPLETION_INDEX\}\/(\d+)\\?"/.exec(words)
  assert.ok(part, `the pod's command gives --part: ${words}`)
  assert.equal(Number(part[1]), job.spec.completions, 'N of --part K/N is completions')
  assert.ok(!words.includes('--client-offset'), 'no offset of its own: --part gives it')
  const config = find('ConfigMap', 'ioswarm-simulate').data
  const clients = Number(config.IOSWARM_CLIENTS)
  const whole = partitionSwarm(
    { clients: clients * job.spec.completions, emitters: parseEmitters(config.IOSWARM_EMITTERS ?? '10%', '--emitters') },
    job.spec.completions
  )
  for (let k = 0; k < job.spec.completions; k++) {
    const pod = normalizeSimOptions({
      url: 'http://ioswarm-server:3000',
      clients,
      emitters: config.IOSWARM_EMITTERS ?? '10%',
      part: `${k}/${job.spec.completions}`
    })
    assert.deepEqual([pod.clientOffset, pod.emitters], [whole[k].clientOffset, whole[k].emitters], `pod ${k}`)
    assert.equal(pod.clientOffset, k * clients)
  }
})

test('URLs name the Services and their ports', () => {
  const serverPort = find('Service', 'ioswarm-server').spec.ports[0].port
  const redisPort = find('Service', 'ioswarm-redis').spec.ports[0].port
  const runnerArgs = podSpec(find('Job', 'ioswarm-runner')).containers[0].args
  assert.equal(runnerArgs[runnerArgs.indexOf('--target') + 1], `http://ioswarm-server:${serverPort}`)
  assert.equal(runnerArgs[runnerArgs.indexOf('--redis') + 1], `redis://ioswarm-redis:${redisPort}`)
  const env = podSpec(find('Job', 'ioswarm-simulators')).containers[0].env
  assert.equal(env.find((/** @type {any} */ e) => e.name === 'IOSWARM_URL').value, `http://ioswarm-server:${serverPort}`)
  assert.equal(env.find((/** @type {any} */ e) => e.name === 'IOSWARM_REDIS').value, `redis://ioswarm-redis:${redisPort}`)
  assert.ok(podSpec(find('Deployment', 'ioswarm-server')).containers[0].args.join(' ').includes(`--port ${serverPort}`))
})

test('every IOSWARM_ variable is an option of the command its container runs; ConfigMap keys exist', () => {
  const config = find('ConfigMap', 'ioswarm-run')
  let checked = 0
  for (const { file, doc } of DOCS.filter(({ doc }) => doc.spec?.template)) {
    for (const container of podSpec(doc).containers) {
      if (container.image.startsWith('redis:')) continue
      const cli = ioswarmCommand(container)
      assert.ok(cli, `${file}: ${container.name} runs ioswarm`)
      assert.equal(cli.version, VERSION, `${file}: image ioswarm:${VERSION}, the version of this package`)
      const known = envNames(cli.command)
      for (const variable of container.env ?? []) {
        assert.ok(known.has(variable.name), `${file}: ${variable.name} is not an option of ioswarm ${cli.command} (known: ${[...known].join(' ')})`)
        const ref = variable.valueFrom?.configMapKeyRef
        if (ref) assert.ok(ref.name === config.metadata.name && ref.key in config.data, `${file}: ${variable.name} reads a key the ConfigMap has`)
        checked++
      }
      for (const from of container.envFrom ?? []) {
        const source = find('ConfigMap', from.configMapRef?.name)
        for (const key of Object.keys(source.data)) {
          assert.ok(known.has(key), `${file}: ${key} (ConfigMap ${source.metadata.name}) is not an option of ioswarm ${cli.command}`)
          checked++
        }
      }
    }
  }
  assert.ok(checked >= 8, `checked ${checked} variables`)
  assert.ok(envNames('simulate').has('IOSWARM_MESSAGE_TIMEOUT'), 'the check itself sees every simulate option')
})

test('every container has requests and a memory limit; the runner and simulators wait for Redis and the server', () => {
  for (const { file, doc } of DOCS.filter(({ doc }) => doc.spec?.template)) {
    for (const container of containers(doc)) {
      if (container.name === 'wait-for-services') continue
      const { requests, limits } = container.resources ?? {}
      assert.ok(requests?.cpu && requests?.memory && limits?.memory, `${file}: ${container.name} resources`)
      assert.ok(container.image, `${file}: ${container.name} image`)
    }
  }
  for (const name of ['ioswarm-simulators', 'ioswarm-runner']) {
    const wait = podSpec(find('Job', name)).initContainers?.[0]
    assert.equal(wait?.name, 'wait-for-services')
    assert.match(wait.command.join(' '), /\['ioswarm-redis', 6379\], \['ioswarm-server', 3000\]/)
  }
})
