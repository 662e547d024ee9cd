import { test } from 'node:test'
import { createCollector } from '../../results/collector/index.js'
import { runCollectorContract } from './collector.contract.js'

test('memory collector: the collector contract', async (t) => {
  await runCollectorContract(t, (limits) => createCollector({ ...limits }))
})
