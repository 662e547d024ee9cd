import { test } from 'node:test'
import assert from 'node:assert/strict'
import { entryArgs } from '../../bin/pm2-args.js'

test('each simulator instance gets its id, metrics port and part of the fleet\'s swarm; foreign variables are dropped', () => {
  const env = {
    NODE_APP_INSTANCE: '2',
    IOSWARM_ID_PREFIX: 'host a',
    IOSWARM_METRICS_PORT_BASE: '9500',
    IOSWARM_PART_BASE: '4',
    IOSWARM_PARTS: '12',
    IOSWARM_CLIENTS: '250',
    IOSWARM_SIMULATORS: '4'
  }
  const { args, drop } = entryArgs(['simulate', '--quiet'], env)
  assert.deepEqual(args, ['simulate', '--quiet', '--id', 'host-a-2', '--metrics-port', '9502', '--metrics-host', '0.0.0.0', '--part', '6/12'])
  assert.ok(drop.includes('IOSWARM_SIMULATORS') && drop.includes('IOSWARM_PART_BASE') && drop.includes('IOSWARM_PARTS'))
  assert.ok(!drop.includes('IOSWARM_CLIENTS'))
  assert.ok(!entryArgs(['simulate'], { ...env, IOSWARM_PART: '0/1' }).args.includes('--part'), 'a given part wins')
  assert.deepEqual(entryArgs(['serve'], env).args, ['serve'])
})
