/**
 * The compatibility page (docs/compatibility.md) is checked against this suite: every interop
 * test file is named in its tables, and every test file its tables name exists.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from '../helpers/cli.js'

test('docs/compatibility.md names every interop test, and only tests that exist', () => {
  const page = readFileSync(join(ROOT, 'docs/compatibility.md'), 'utf8')
  const rows = page.split('\n').filter((l) => l.startsWith('| ') && !l.startsWith('| server') && !l.startsWith('|---'))
  assert.ok(rows.length >= 5, 'the tables have their rows')
  const named = new Set(rows.flatMap((row) => [...row.matchAll(/`(test\/[^`]+)`/g)].map((m) => m[1])))
  for (const file of named) assert.ok(existsSync(join(ROOT, file)), `${file} exists`)
  for (const file of readdirSync(join(ROOT, 'test/interop')).filter((f) => f.endsWith('.test.js') && f !== 'compatibility-doc.test.js')) {
    assert.ok(named.has(`test/interop/${file}`), `test/interop/${file} is in docs/compatibility.md`)
  }
})
