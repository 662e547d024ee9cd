import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createReasonCounter, MAX_REASON_CHARS, MAX_REASONS, mergeReasonCounts, OTHER_REASONS, reasonKey, reasonRows } from '../../lib/reasons.js'

test('names of Object.prototype count like any other reason, and pollute nothing', () => {
  const counter = createReasonCounter()
  for (const reason of ['__proto__', '__proto__', 'constructor', 'toString', 'hasOwnProperty', '__proto__']) counter.add(reason)
  const record = counter.record()
  assert.equal(Object.getPrototypeOf(record), Object.prototype)
  assert.deepEqual(Object.entries(record), [['__proto__', 3], ['constructor', 1], ['hasOwnProperty', 1], ['toString', 1]])
  assert.equal(counter.total(), 6)
  assert.equal(/** @type {any} */ ({}).polluted, undefined)
  // Through JSON (a final report read from Redis) and a merge, still right.
  const again = mergeReasonCounts([JSON.parse(JSON.stringify(record)), JSON.parse('{"__proto__": 2, "constructor": 1}')])
  assert.deepEqual(Object.entries(again), [['__proto__', 5], ['constructor', 2], ['hasOwnProperty', 1], ['toString', 1]])
})

test('a reason key is bounded, escaped and idempotent', () => {
  const long = 'x'.repeat(100_000)
  const key = reasonKey(long)
  assert.equal(key.length, MAX_REASON_CHARS)
  assert.match(key, /^x+… \[100000 chars\]$/)
  assert.equal(reasonKey(key), key)
  assert.equal(reasonKey('a\nb\r\n\t\u001b[31mred\u0000\u202eevil\u2028'), 'a\\nb\\r\\n\\t\\u001b[31mred\\u0000\\u202eevil\\u2028')
  assert.equal(reasonKey(''), '(empty)')
  assert.equal(reasonKey(undefined), '(empty)')
  assert.equal(reasonKey('<script>alert(1)</script>'), '<script>alert(1)</script>', 'markup is the report\'s to escape, not the counter\'s')
  // Escapes that push a short text past the bound are cut like a long text.
  const controls = reasonKey('\u0001'.repeat(100))
  assert.ok(controls.length <= MAX_REASON_CHARS && controls.endsWith('… [100 chars]'), controls)
  // A cut never leaves half a surrogate pair.
  const emoji = reasonKey('😀'.repeat(150))
  assert.ok(emoji.length <= MAX_REASON_CHARS)
  assert.doesNotMatch(emoji, /[\ud800-\udbff](?![\udc00-\udfff])/)
})

test('distinct reasons are bounded: the rest fold into one key, counts add up', () => {
  const counter = createReasonCounter()
  for (let i = 0; i < 200; i++) counter.add(`client ${i} refused`)
  counter.add('client 0 refused')
  const record = counter.record()
  assert.equal(Object.keys(record).length, MAX_REASONS + 1)
  assert.equal(record['client 0 refused'], 2, 'a reason already counted keeps counting')
  assert.equal(record[OTHER_REASONS], 200 - MAX_REASONS)
  assert.equal(Object.keys(record).at(-1), OTHER_REASONS)
  assert.equal(Object.values(record).reduce((a, b) => a + b, 0), 201)

  // Merging keeps the most frequent reasons; the others and both OTHER_REASONS add up.
  const merged = mergeReasonCounts([record, { 'client 199 refused': 5, 'only here': 1 }])
  assert.equal(Object.keys(merged).length, MAX_REASONS + 1)
  assert.equal(merged['client 199 refused'], 5)
  assert.equal(merged[OTHER_REASONS] + Object.entries(merged).filter(([k]) => k !== OTHER_REASONS).reduce((a, [, n]) => a + n, 0), 207)
})

test('a merge ignores what is not a positive count, and normalizes keys it reads', () => {
  const merged = mergeReasonCounts([
    /** @type {any} */ ({ ok: 1, negative: -3, text: '5', nan: NaN, inf: Infinity }),
    null,
    undefined,
    { ['line\nbreak' + 'y'.repeat(300)]: 2 }
  ])
  const keys = Object.keys(merged)
  assert.equal(merged.ok, 1)
  assert.equal(keys.length, 2)
  assert.ok(keys.every((k) => k.length <= MAX_REASON_CHARS && !k.includes('\n')))
})

test('reasonRows: connect errors then disconnects, largest first, the folded ones last', () => {
  const rows = reasonRows({ errors: { [OTHER_REASONS]: 9, a: 1, b: 4 }, disconnects: { 'transport close': 2 } })
  assert.deepEqual(rows.map((r) => [r.kind, r.reason, r.count]), [
    ['connect error', 'b', 4], ['connect error', 'a', 1], ['connect error', OTHER_REASONS, 9], ['disconnect', 'transport close', 2]
  ])
  assert.deepEqual(reasonRows({}), [])
})
