import { test } from 'node:test'
import assert from 'node:assert/strict'
import { compileEventCall, compileEventTemplate, compileJsonTemplate, compileTextTemplate } from '../../../lib/input/template.js'

const names = ['i', 'sim', 'room', 'rand']
const values = { i: 7, sim: 's1', room: 'room-3', rand: 'zz', 'row.token': 'tok7', 'row.n': 42 }
const lookup = (/** @type {string} */ name) => values[/** @type {keyof typeof values} */ (name)]

test('JSON templates: a placeholder alone keeps its type, inside a string it is written in; rows by field', () => {
  const t = compileJsonTemplate('{"user":"u{{i}}","n":{{i}},"token":{{row.token}},"deep":[{"k":{{row.n}}}],"k{{room}}":true}', {
    flag: '--auth',
    names,
    rowFields: ['token', 'n']
  })
  assert.deepEqual(t.render(lookup), { user: 'u7', n: 7, token: 'tok7', deep: [{ k: 42 }], 'kroom-3': true })
  assert.deepEqual(t.placeholders.sort(), ['i', 'room', 'row.n', 'row.token'])
})

test('constant parts are shared between renders; placeholders are rendered each time', () => {
  let n = 0
  const t = compileJsonTemplate('{"fixed":{"a":1},"n":{{i}}}', { flag: '--auth', names })
  const a = /** @type {any} */ (t.render(() => ++n))
  const b = /** @type {any} */ (t.render(() => ++n))
  assert.equal(a.n, 1)
  assert.equal(b.n, 2)
  assert.deepEqual(a.fixed, { a: 1 })
})

test('text templates write every placeholder into the text', () => {
  const t = compileTextTemplate('Bearer {{row.token}}-{{ i }}', { flag: '--header', names, rowFields: ['token'] })
  assert.equal(t.render(lookup), 'Bearer tok7-7')
  assert.equal(compileTextTemplate('plain', { flag: '--header', names }).render(lookup), 'plain')
})

test('errors name the flag: unknown placeholder, rows without a feeder, a missing field, not JSON', () => {
  assert.throws(
    () => compileJsonTemplate('{"a":{{user}}}', { flag: '--auth', names }),
    /^IoswarmError: --auth has an unknown placeholder \{\{user\}\}: use \{\{i\}\} \{\{sim\}\} \{\{room\}\} \{\{rand\}\}$/
  )
  assert.throws(
    () => compileTextTemplate('{{row.token}}', { flag: '--query', names, rowFields: null }),
    /--query uses \{\{row.token\}\}, which needs a feeder: add --feeder FILE/
  )
  assert.throws(
    () => compileTextTemplate('{{row.tokn}}', { flag: '--header', names, rowFields: ['token', 'user'] }),
    /--header uses \{\{row.tokn\}\}, but the feeder has no field "tokn" \(its fields: token, user\)/
  )
  assert.throws(() => compileJsonTemplate('{"a":', { flag: '--auth', names }), (error) => {
    assert.match(String(error), /--auth must be a JSON template/)
    assert.equal(/** @type {any} */ (error).exitCode, 2)
    return true
  })
  assert.throws(() => compileTextTemplate('{{ bad name }}', { flag: '--room', names }), /--room has a malformed placeholder/)
})

test('event templates: a name, then an optional JSON payload', () => {
  const join = compileEventTemplate('join {"room":"{{room}}"}', { flag: '--join', names })
  assert.equal(join.event, 'join')
  assert.deepEqual(join.payload?.render(lookup), { room: 'room-3' })
  assert.deepEqual(compileEventTemplate('ready', { flag: '--join', names }), { event: 'ready', payload: null })
  assert.throws(() => compileEventTemplate('', { flag: '--join', names }), /--join must be an event name, then an optional JSON template/)
  assert.throws(() => compileEventTemplate('chat {"a":', { flag: '--emit', names }), /--emit must be a JSON template/)
})

test('event calls: a JSON array (a name with spaces, any number of arguments) or EVENT <json>, rendered to the arguments', () => {
  const chat = compileEventCall('["new message", "hi from {{i}}", {"room": "{{room}}"}, 3]', { flag: '--emit', names })
  assert.equal(chat.event, 'new message')
  assert.deepEqual(chat.args?.render(lookup), [`hi from ${lookup('i')}`, { room: 'room-3' }, 3])
  assert.deepEqual(chat.args?.placeholders.sort(), ['i', 'room'])
  assert.deepEqual(compileEventCall(' ["ready"] ', { flag: '--join', names }), { event: 'ready', args: null })
  assert.deepEqual(compileEventCall('join {"room":"{{room}}"}', { flag: '--join', names }).args?.render(lookup), [{ room: 'room-3' }])
  assert.deepEqual(compileEventCall('ready', { flag: '--join', names }), { event: 'ready', args: null })
  for (const [text, message] of [
    ['[]', /--emit must be a JSON array, the event name first/],
    ['[7, "x"]', /--emit must be a JSON array.*: the event name is a plain string/],
    ['["{{i}}"]', /the event name is a plain string \(no placeholder\)/],
    ['["chat", ', /--emit must be a JSON template/],
    [`["${'e'.repeat(201)}"]`, /--emit has an event name over 200 characters/]
  ]) {
    assert.throws(() => compileEventCall(/** @type {string} */ (text), { flag: '--emit', names }), (error) => {
      assert.match(String(error), /** @type {RegExp} */ (message))
      assert.equal(/** @type {any} */ (error).exitCode, 2)
      return true
    })
  }
})

test('{{env.NAME}} where the environment is read; a clear error where it is not', () => {
  const t = compileTextTemplate('Bearer {{env.APP_TOKEN}}', { flag: '--header', names, env: true })
  assert.equal(t.render((name) => (name === 'env.APP_TOKEN' ? 's3' : '')), 'Bearer s3')
  assert.throws(
    () => compileTextTemplate('{{env.APP_TOKEN}}', { flag: '--message', names }),
    /--message has a placeholder \{\{env.APP_TOKEN\}\}, but the environment is not read here/
  )
  assert.throws(
    () => compileTextTemplate('{{env.1X}}', { flag: '--header', names, env: true }),
    /--header has \{\{env.1X\}\}: an environment variable's name is letters, digits and _/
  )
})
