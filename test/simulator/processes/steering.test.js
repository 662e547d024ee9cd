/**
 * `ioswarm simulate`'s steering (simulator/processes/steering.js) against a real socket.io server:
 * one process resizes its own swarm, --workers gives each worker its share; the server's own
 * count follows; growth past the room made at the start is refused (409) and changes nothing;
 * the actions are the result's timeline.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createSteering, normalizeSimOptions, runLinkedSwarm, runWorkers } from '../../../simulator/index.js'
import { runCli } from '../../helpers/cli.js'
import { startTestServer, waitForClients } from '../../helpers/swarm.js'

/**
 * @param {import('node:test').TestContext} t
 * @param {Record<string, unknown>} more
 */
async function setUp (t, more) {
  const server = await startTestServer(t, { pingIntervalMs: 1000 })
  const options = { ...normalizeSimOptions({ url: server.url, ramp: '100ms', duration: '60s', quiet: true, ...more }), id: 'steered' }
  const steering = createSteering({ command: 'simulate' })
  t.after(() => steering.act('stop', {}, 'api'))
  return { server, options, steering }
}

/**
 * Asks until the swarm runs (before, it is refused as not running: 409).
 * @param {import('../../../lib/steering.js').Steering} steering
 * @param {number} clients
 */
async function resizeOnceRunning (steering, clients) {
  for (let k = 0; k < 200; k++) {
    const answer = await steering.act('clients', { clients }, 'api')
    if (answer.ok || answer.status !== 409 || !/not running/.test(answer.message)) return answer
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error('the swarm never ran')
}

test('one process: clients N grows and shrinks its own swarm, up to --max-clients', async (t) => {
  const { server, options, steering } = await setUp(t, { clients: 3, maxClients: 8 })
  const running = runLinkedSwarm(options, null, { steering })
  await waitForClients(server, 3)
  const grown = await resizeOnceRunning(steering, 8)
  assert.ok(grown.ok, JSON.stringify(grown))
  await waitForClients(server, 8)
  const tooMany = await steering.act('clients', { clients: 9 }, 'api')
  assert.deepEqual(!tooMany.ok && [tooMany.status, tooMany.message], [409,
    'this swarm has room for 8 clients (reserved at its start: --max-clients, else with --dashboard twice the swarm as far as this host\'s limits hold it); ' +
    'start it with --max-clients 9 or more to grow to 9'])
  const noEmit = await steering.act('emit-rate', { rate: '2/s' }, 'api')
  assert.match(!noEmit.ok ? noEmit.message : '', /no --emit/)
  assert.ok((await steering.act('clients', { clients: 2 }, 'api')).ok)
  await waitForClients(server, 2)
  await steering.act('stop', {}, 'api')
  const { result } = await running
  assert.equal(result.clients.target, 2, 'its target is the last size asked')
  // Those asked before the swarm ran are refused as not running; the rest in order.
  assert.deepEqual(result.actions?.filter((a) => !/not running/.test(a.message ?? '')).map((a) => [a.action, a.value, a.ok]), [
    ['clients', 8, true], ['clients', 9, false], ['emit-rate', '2/s', false], ['clients', 2, true], ['stop', null, true]
  ])
})

test('--workers: each worker resizes to its share of N (the one partition), the server counts them all', async (t) => {
  const { server, options, steering } = await setUp(t, { clients: 4, maxClients: 10 })
  const running = runWorkers(options, 2, { steering })
  await waitForClients(server, 4)
  const grown = await resizeOnceRunning(steering, 9)
  assert.ok(grown.ok, JSON.stringify(grown))
  await waitForClients(server, 9)
  await steering.act('stop', {}, 'api')
  const result = await running
  assert.deepEqual(result.workers?.list.map((w) => w.clients.target).sort(), [4, 5], 'shares of 9 over 2 workers')
  assert.equal(result.actions?.filter((a) => a.ok).map((a) => `${a.action} ${a.value}`).join(', '), 'clients 9, stop null')
})

test('`ioswarm simulate`: Ctrl-C is the stop action: said on the terminal and in the JSON result', async (t) => {
  const server = await startTestServer(t, { pingIntervalMs: 1000 })
  const run = runCli(t, ['bin/ioswarm.js', 'simulate', '--json', '--url', server.url, '--clients', '2', '--ramp', '0', '--duration', '60s'], {
    timeoutMs: 60000
  })
  await waitForClients(server, 2)
  run.child.kill('SIGINT')
  const { code, stdout, stderr } = await run
  assert.equal(code, 0, stderr)
  assert.match(stderr, /^action \d\d:\d\d:\d\d stop by signal: done$/m)
  const result = JSON.parse(stdout)
  assert.deepEqual(result.actions.map((/** @type {any} */ a) => [a.action, a.by, a.ok]), [['stop', 'signal', true]])
})
