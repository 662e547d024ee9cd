import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { makeOutDir } from '../../lib/cli-run.js'

test('makeOutDir: --out made before anything starts (what it made, to remove on an early failure); ' +
  'one that cannot be written is exit 2 naming --out', async (t) => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ioswarm-out-'))
  t.after(() => rmSync(dir, { recursive: true, force: true }))
  const out = path.join(dir, 'a', 'b')
  assert.equal(await makeOutDir(out), path.join(dir, 'a'), 'the first folder it made')
  assert.ok(statSync(out).isDirectory())
  assert.equal(await makeOutDir(out), undefined, 'there already: nothing to remove later')
  const file = path.join(dir, 'file')
  writeFileSync(file, '')
  await assert.rejects(makeOutDir(path.join(file, 'results')), (/** @type {any} */ error) => {
    assert.match(error.message, /^--out cannot be written \(ENOTDIR.*\); nothing was started$/)
    assert.equal(error.exitCode, 2)
    return true
  })
})
