import { test } from 'node:test'
import assert from 'node:assert/strict'
import { execFileSync } from 'node:child_process'
import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { createRedisCollector } from '../../results/collector/index.js'
import { listensOn, onClosedPort } from '../helpers/ports.js'
import { getRedisUrl } from '../helpers/redis.js'
import { waitFor } from '../helpers/wait.js'
import { pm2Home } from './fixtures/pm2-home.js'
import { ROOT } from '../helpers/cli.js'

/**
 * The simulator app as pm2 would read it with this environment.
 * @param {Record<string, string>} env
 * @returns {{ args: string[], env: Record<string, string> }}
 */
function simulatorApp (env) {
  const script = 'const [app] = require("./infra/ecosystem.config.cjs").apps; process.stdout.write(JSON.stringify({ args: app.args, env: app.env }))'
  const clean = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('IOSWARM_')))
  return JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: ROOT, env: { ...clean, ...env }, timeout: 10000 }).toString())
}

test('the simulators get every IOSWARM_* option variable that is set, and none of the file\'s own settings', () => {
  const plain = simulatorApp({ IOSWARM_ENGINE: 'lean' })
  assert.deepEqual(plain.args, ['simulate', '--quiet'])
  assert.ok(!('IOSWARM_WS_CLIENT' in plain.env) && !('IOSWARM_RAMP' in plain.env), JSON.stringify(plain.env))
  const set = simulatorApp({
    IOSWARM_ENGINE: 'lean',
    IOSWARM_WS_CLIENT: 'builtin',
    IOSWARM_RAMP: '5s',
    IOSWARM_SIMULATORS: '3',
    IOSWARM_TOKEN: 't',
    IOSWARM_ID_PREFIX: 'h'
  })
  assert.deepEqual(set.env, { IOSWARM_ENGINE: 'lean', IOSWARM_WS_CLIENT: 'builtin', IOSWARM_RAMP: '5s', IOSWARM_ID_PREFIX: 'h' })
})

test('pm2 runs the ecosystem file: the server and K simulators per host join the run in Redis, and pm2 stop flushes every final report', async (t) => {
  const redisUrl = await getRedisUrl(t)
  if (!redisUrl) return
  const runId = `eco-${randomUUID()}`
  const collector = await createRedisCollector({ redisUrl })
  t.after(async () => {
    await collector.deleteRun(runId)
    await collector.close()
  })
  const pm2 = await pm2Home(t)
  // pm2 starts the server and the simulators together, all told the port: one nobody listened on, and another if the
  // server found it taken meanwhile (ports.js).
  const url = await onClosedPort(async (port) => {
    const at = `http://127.0.0.1:${port}`
    await pm2.run(['start', 'infra/ecosystem.config.cjs'], {
      env: {
        IOSWARM_PORT: String(port),
        IOSWARM_HOST: '127.0.0.1',
        IOSWARM_TOKEN: 'eco-token',
        IOSWARM_URL: at,
        IOSWARM_REDIS: redisUrl,
        IOSWARM_RUN: runId,
        IOSWARM_SIMULATORS: '2',
        IOSWARM_CLIENTS: '20',
        IOSWARM_RAMP: '0',
        IOSWARM_ID_PREFIX: 'eco-host'
      }
    })
    await waitFor(async () => {
      const server = (await pm2.list()).find((a) => a.name === 'ioswarm-server')
      if (server && (server.pm2_env.restart_time > 0 || server.pm2_env.status === 'errored')) {
        const log = await readFile(server.pm2_env.pm_err_log_path, 'utf8').catch(() => '')
        await pm2.run(['delete', 'all'])
        throw new Error(`the pm2 server app failed on port ${port}: ${log.slice(-1000)}`)
      }
      return server?.pid > 0 && listensOn(server.pid, port)
    }, { timeoutMs: 30000, message: `the pm2 server app listening on ${port}` })
    return at
  })
  const apps = await pm2.list()
  assert.deepEqual(apps.map((a) => [a.name, a.pm2_env.exec_mode]).sort(), [
    ['ioswarm-server', 'fork_mode'],
    ['ioswarm-sim', 'fork_mode'],
    ['ioswarm-sim', 'fork_mode']
  ])

  const joined = await waitFor(async () => {
    const sims = await collector.listSimulators(runId)
    return sims.length === 2 && sims.every((s) => s.alive && s.clients.connected === 20) ? sims : null
  }, { timeoutMs: 30000, message: 'two simulators alive in Redis with 20 clients each' })
  assert.ok(joined)
  assert.deepEqual(joined.map((s) => s.id), ['eco-host-0', 'eco-host-1'])
  const stats = /** @type {{ connected: number }} */ (await (await fetch(`${url}/stats`)).json())
  assert.equal(stats.connected, 40, 'the pm2 server holds every client')

  await pm2.run(['stop', 'ioswarm-sim'])
  const finals = await collector.getFinals(runId)
  assert.deepEqual(finals.map((f) => [f.simulator, f.clients.target, f.clients.connected]), [['eco-host-0', 20, 20], ['eco-host-1', 20, 20]])
  const after = await collector.listSimulators(runId)
  assert.ok(after.every((s) => !s.stale && s.final !== null), 'stopped simulators are finished, not stale')
  assert.ok((await pm2.list()).filter((a) => a.name === 'ioswarm-sim').every((a) => a.pm2_env.status === 'stopped'))
})
