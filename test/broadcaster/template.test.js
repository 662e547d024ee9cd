import { test } from 'node:test'
import assert from 'node:assert/strict'
import { parseMessageTemplate, renderMessage } from '../../broadcaster/template.js'

const values = { id: '2.7', batch: 'a1b2c3', round: 2, seq: 7, sentAt: 1712345678901.25, payload: 'abc', room: null }

test('a placeholder alone is the value with its type; inside a string it is written into it', () => {
  const template = parseMessageTemplate(
    '{"id":{{id}},"r":{{round}},"s":{{ seq }},"ts":{{sentAt}},"p":{{payload}},"ref":"msg-{{id}}/{{round}}","quoted":"{{sentAt}}"}'
  )
  assert.deepEqual(template.render(values), { id: '2.7', r: 2, s: 7, ts: 1712345678901.25, p: 'abc', ref: 'msg-2.7/2', quoted: '1712345678901.25' })
  assert.deepEqual(template.placeholders.sort(), ['id', 'payload', 'round', 'sentAt', 'seq'])
})

test('nested shapes, arrays, escapes and braces in strings are kept', () => {
  const template = parseMessageTemplate('["score", {"data": {"n": [{{seq}}, 1, null, true]}, "text": "say \\"{{id}}\\" {not a placeholder}", "k{{seq}}": 1}]')
  assert.deepEqual(template.render(values), ['score', { data: { n: [7, 1, null, true] }, text: 'say "2.7" {not a placeholder}', k7: 1 }])
})

test('renderMessage fills id, round, seq, sentAt and a payload of the requested size', () => {
  const template = parseMessageTemplate('{"id":{{id}},"p":{{payload}},"ts":{{sentAt}}}')
  assert.deepEqual(renderMessage(template, { round: 3, seq: 1, size: 5 }, 42), { id: '3.1', p: 'ioswa', ts: 42 })
})

test('{{room}}: the target room as a value, null when to everyone; inside a string, nothing then', () => {
  const template = parseMessageTemplate('{"room":{{room}},"topic":"live/{{room}}"}')
  assert.deepEqual(renderMessage(template, { round: 1, seq: 2, size: 0, room: 'room-1' }, 1), { room: 'room-1', topic: 'live/room-1' })
  assert.deepEqual(renderMessage(template, { round: 1, seq: 2, size: 0 }, 1), { room: null, topic: 'live/' })
})

test('a template that is not JSON, or names an unknown placeholder, is a usage error naming the flag', () => {
  assert.throws(() => parseMessageTemplate('{"id": {{id}}'), (error) => {
    assert.match(
      /** @type {Error} */ (error).message,
      /^--message must be a JSON template \(placeholders \{\{id\}\} \{\{batch\}\} \{\{round\}\} \{\{seq\}\} \{\{sentAt\}\} \{\{payload\}\}/
    )
    assert.equal(/** @type {any} */ (error).exitCode, 2)
    return true
  })
  assert.throws(() => parseMessageTemplate('{"id": "{{ts}}"}'), /--message has an unknown placeholder \{\{ts\}\}/)
  assert.throws(() => parseMessageTemplate('not json'), /--message must be a JSON template/)
})
