/**
 * Regenerates docs/options.md from the options tables: `npm run docs`.
 * (test/lib/cli-options/reference.test.js fails when it is stale.)
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { optionsDocument } from './options-doc.js'

const file = new URL('../docs/options.md', import.meta.url)
mkdirSync(new URL('.', file), { recursive: true })
writeFileSync(file, optionsDocument())
process.stdout.write(`wrote ${file.pathname}\n`)
