import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { envNameOf, optionsOf } from '../../lib/cli-options/index.js'
import { simulateConfigMap } from '../../infra/generate.js'

test('infra/k8s/simulate-config.yaml is what the options table makes (else: node scripts/gen-infra.js)', () => {
  const checkedIn = readFileSync(new URL('../../infra/k8s/simulate-config.yaml', import.meta.url), 'utf8')
  assert.equal(checkedIn, simulateConfigMap(), 'stale: run `node scripts/gen-infra.js` and commit the file')
  for (const o of optionsOf('simulate').filter((o) => o.passOn)) assert.ok(checkedIn.includes(`${envNameOf(o)}:`), envNameOf(o))
})
