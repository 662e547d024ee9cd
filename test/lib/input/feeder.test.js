import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadFeeder } from '../../../lib/input/feeder.js'

/** @param {import('node:test').TestContext} t */
function tempDir (t) {
  const dir = mkdtempSync(join(tmpdir(), 'ioswarm-feeder-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

test('a CSV feeder: header row, quoted fields, a BOM, blank lines skipped', (t) => {
  const file = join(tempDir(t), 'users.csv')
  writeFileSync(file, '\uFEFFuser,token,room\nalice,"a,1",red\n\nbob,b2,blue\n')
  const feeder = loadFeeder(file)
  assert.deepEqual(feeder.fields, ['user', 'token', 'room'])
  assert.deepEqual(feeder.rows, [{ user: 'alice', token: 'a,1', room: 'red' }, { user: 'bob', token: 'b2', room: 'blue' }])
})

test('a JSON lines feeder keeps types; fields are the union of every row\'s', (t) => {
  const file = join(tempDir(t), 'users.jsonl')
  writeFileSync(file, '{"user":"alice","n":1}\n{"user":"bob","vip":true}\n')
  const feeder = loadFeeder(file)
  assert.deepEqual(feeder.fields, ['user', 'n', 'vip'])
  assert.equal(feeder.rows[1].vip, true)
})

test('bad feeders are usage errors naming --feeder and what is wrong', (t) => {
  const dir = tempDir(t)
  assert.throws(() => loadFeeder(join(dir, 'nope.csv')), /^IoswarmError: --feeder cannot read ".*nope.csv"/)
  writeFileSync(join(dir, 'empty.csv'), 'user,token\n')
  assert.throws(() => loadFeeder(join(dir, 'empty.csv')), /--feeder .*empty.csv has no rows \(a CSV feeder needs a header row and at least one row\)/)
  writeFileSync(join(dir, 'bad.jsonl'), '{"a":1}\n{"a":\n')
  assert.throws(() => loadFeeder(join(dir, 'bad.jsonl')), /--feeder .*bad.jsonl line 2 is not JSON/)
  writeFileSync(join(dir, 'array.jsonl'), '{"a":1}\n[1,2]\n')
  assert.throws(() => loadFeeder(join(dir, 'array.jsonl')), /line 2 must be a JSON object/)
  writeFileSync(join(dir, 'ragged.csv'), 'a,b\n1,2,3\n')
  assert.throws(() => loadFeeder(join(dir, 'ragged.csv')), /--feeder .*ragged.csv is not a CSV file with a header row/)
})
