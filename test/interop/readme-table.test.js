/**
 * The README's compatibility table ("Servers it speaks to") is checked against this suite:
 * every interop test file is in the table, and every test file the table names exists.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../helpers/cli.js'

test('the README\'s table of servers names every interop test, and only tests that exist', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const section = readme.slice(readme.indexOf('## Servers it speaks to'), readme.indexOf('## What it measures'))
  const rows = section.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| server') && !l.startsWith('|---'))
  assert.ok(rows.length >= 5, 'the table has its rows')
  const named = new Set(rows.flatMap((row) => [...row.matchAll(/`(test\/[^`]+)`/g)].map((m) => m[1])))
  for (const file of named) assert.ok(existsSync(join(ROOT, file)), `${file} exists`)
  for (const file of readdirSync(join(ROOT, 'test/interop')).filter((f) => f.endsWith('.test.js') && f !== 'readme-table.test.js')) {
    assert.ok(named.has(`test/interop/${file}`), `test/interop/${file} is in the README's table`)
  }
})
