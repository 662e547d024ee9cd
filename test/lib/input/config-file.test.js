import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { loadConfigFile } from '../../../lib/input/config-file.js'
import { IoswarmError, EXIT } from '../../../lib/errors.js'
import { runCli } from '../../helpers/cli.js'

/** @param {import("node:test").TestContext} t @param {Record<string, string>} contents */
async function files (t, contents) {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-config-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  /** @type {Record<string, string>} */
  const paths = {}
  for (const [name, text] of Object.entries(contents)) {
    paths[name] = path.join(dir, name)
    await writeFile(paths[name], text)
  }
  return paths
}

/** @param {() => unknown} fn @param {RegExp} message */
function rejectsInput (fn, message) {
  assert.throws(fn, (error) => error instanceof IoswarmError && error.exitCode === EXIT.USAGE && message.test(error.message))
}

test('JSON and YAML config files load; broken ones name the file, line and column', async (t) => {
  const p = await files(t, {
    'ok.json': '{ "clients": 5, "transport": "polling" }',
    'ok.yml': 'clients: 5\nevent:\n  - a\n  - b\n',
    'bad.json': '{\n "clients": 5,\n "url": oops\n}\n',
    'bad.yaml': 'clients: 3\nurl: [\n',
    'list.json': '[1, 2]'
  })
  assert.deepEqual(loadConfigFile(p['ok.json']), { clients: 5, transport: 'polling' })
  assert.deepEqual(loadConfigFile(p['ok.yml']), { clients: 5, event: ['a', 'b'] })
  rejectsInput(() => loadConfigFile(p['bad.json']), /bad\.json is not valid JSON: line 3, column 9: Unexpected token 'o'$/)
  rejectsInput(() => loadConfigFile(p['bad.yaml']), /bad\.yaml is not valid YAML: line 3, column 1/)
  rejectsInput(() => loadConfigFile(p['list.json']), /must hold an object of options/)
  rejectsInput(() => loadConfigFile(`${p['ok.json']}.missing`), /cannot read .*ok\.json\.missing \(ENOENT\)/)
})

test('--config through the CLI: values apply, mistakes exit 2 with the file named', async (t) => {
  const p = await files(t, {
    'bad.json': '{ "clients": 2,, }',
    'typo.json': '{ "clients": 2, "cleints": 3 }',
    'wrong-type.json': '{ "clients": "many" }',
    'ws-client.yml': 'clients: 2\nws-client: builtin\n'
  })
  for (const [file, message] of [
    ['bad.json', /--config: .*bad\.json is not valid JSON: line 1, column/], ['typo.json', /Unknown argument: cleints/],
    ['wrong-type.json', /--clients must be a whole number .*"many"/],
    // A simulate option read from the file reaches the same checks as the flag (sio is the default engine).
    ['ws-client.yml', /--ws-client works with --engine lean only/]
  ]) {
    const { code, stderr } = await runCli(t, ['client.js', '--config', p[/** @type {string} */ (file)], '--url', 'http://127.0.0.1:1'], { timeoutMs: 15000 })
    assert.equal(code, 2, `${file}: ${stderr}`)
    assert.match(stderr, /** @type {RegExp} */ (message))
  }
})
