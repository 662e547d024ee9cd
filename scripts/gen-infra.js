/**
 * Regenerates the checked-in files derived from the options table: `node scripts/gen-infra.js`.
 * (test/infra/generate.test.js fails when they are stale.)
 */
import { writeFileSync } from 'node:fs'
import { simulateConfigMap } from '../infra/generate.js'

const file = new URL('../infra/k8s/simulate-config.yaml', import.meta.url)
writeFileSync(file, simulateConfigMap())
process.stdout.write(`wrote ${file.pathname}\n`)
