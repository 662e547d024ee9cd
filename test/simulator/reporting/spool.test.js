import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { test } from 'node:test'
import { createSpool } from '../../../simulator/reporting/spool.js'

/** @param {import('node:test').TestContext} t */
function tempDir (t) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'ioswarm-spool-test-'))
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }))
  return dir
}

test('values come back in the order appended, in batches, and the file is deleted once drained', (t) => {
  const spool = createSpool({ dir: tempDir(t) })
  assert.equal(fs.existsSync(spool.file), false, 'nothing on disk before the first append')
  for (let i = 0; i < 25; i++) spool.append({ i, text: 'é'.repeat(i % 5) })
  assert.equal(spool.size, 25)
  assert.ok(fs.existsSync(spool.file))
  const taken = [...spool.take(10), ...spool.take(10)]
  spool.append({ i: 25, text: '' })
  taken.push(...spool.take(100))
  assert.deepEqual(taken.map((v) => /** @type {{ i: number }} */ (v).i), Array.from({ length: 26 }, (_, i) => i))
  assert.equal(spool.size, 0)
  assert.equal(fs.existsSync(spool.file), false, 'drained spool leaves no file')
  assert.deepEqual(spool.take(5), [])
})

test('values larger than one read chunk survive, and close removes the file', (t) => {
  const spool = createSpool({ dir: tempDir(t) })
  const big = 'x'.repeat(200 * 1024)
  spool.append({ big })
  spool.append({ small: 1 })
  assert.deepEqual(spool.take(1), [{ big }])
  assert.equal(spool.size, 1)
  spool.close()
  assert.equal(spool.size, 0)
  assert.equal(fs.existsSync(spool.file), false)
})
