import { test } from 'node:test'
import assert from 'node:assert/strict'
import yargs from 'yargs'
import {
  OPTIONS, STARTS_SIMULATORS, declareOptions, envNameOf, keyOf, optionsOf, parseOptions, passOnOptions, pickPassOn
} from '../../../lib/cli-options/index.js'
import { commands } from '../../../bin/commands.js'

const COMMANDS = ['simulate', 'run', 'capacity', 'serve', 'broadcast', 'report', 'probe', 'fleet up', 'fleet exec', 'fleet down', 'fleet status']

test('no command has two options of one name or one alias', () => {
  for (const command of COMMANDS) {
    const names = optionsOf(command).flatMap((o) => [o.name, ...(o.alias ? [o.alias] : [])])
    assert.deepEqual(names.filter((n, i) => names.indexOf(n) !== i), [], command)
    assert.ok(optionsOf(command).length > 0, `${command} has options`)
  }
  for (const o of OPTIONS) assert.match(o.name, /^[a-z][a-z0-9-]*$/, o.name)
})

test('every passOn option is a simulate option that run, capacity and fleet up also declare (unless the row says notOn)', () => {
  assert.ok(passOnOptions().length >= 12)
  for (const o of passOnOptions()) {
    assert.ok(o.commands.includes('simulate'), o.name)
    for (const command of STARTS_SIMULATORS) assert.equal(optionsOf(command).includes(o), !o.notOn?.includes(command), `${command} --${o.name}`)
  }
  // capacity sets the clients itself (so takes no --phases; --clients only with --vary emit-rate; its room from its --max), and
  // measures without churn, and without a ramp that holds on its own (a step is judged on the clients it asked for).
  assert.deepEqual(passOnOptions().filter((o) => o.notOn?.includes('capacity')).map((o) => o.name), ['max-clients', 'phases', 'ramp-guard', 'session-lifetime'])
})

test('yargs declarations come from the table: every option of a command, and nothing else, in --help', () => {
  const builderOf = Object.fromEntries(commands.map((c) => [String(c.command).split(' ')[0], c.builder]))
  for (const command of ['simulate', 'run', 'capacity', 'serve', 'broadcast', 'probe']) {
    const y = yargs([])
    const builder = /** @type {(y: import('yargs').Argv) => unknown} */ (builderOf[command])
    builder(y)
    const declared = Object.keys(/** @type {any} */ (y).getOptions().key).filter((k) => k.length > 1 && !/[A-Z]/.test(k) && !['help', 'version'].includes(k))
    assert.deepEqual(declared.sort(), optionsOf(command).map((o) => o.name).sort(), command)
  }
})

test('parseOptions applies defaults, parses each value by its row, and names the flag of a bad one', () => {
  const o = parseOptions('simulate', { ramp: '2s', maxPayload: '1MiB' })
  assert.equal(o.clients, 100)
  assert.equal(o.rampMs, 2000)
  assert.equal(o.maxPayloadBytes, 1024 * 1024)
  assert.equal(o.durationMs, null)
  assert.deepEqual(o.events, ['broadcast'])
  assert.throws(() => parseOptions('simulate', { clients: 'many' }), /^IoswarmError: --clients must be a whole number/)
  assert.throws(() => parseOptions('simulate', { engine: 'turbo' }), /--engine must be one of sio, lean, got "turbo"/)
  assert.throws(() => parseOptions('serve', { port: '70000' }), /--port must be a whole number from 0 to 65535/)
})

test('env names and keys follow yargs: IOSWARM_MAX_PAYLOAD, maxPayload; pickPassOn keeps only given simulator options', () => {
  assert.equal(envNameOf('max-payload'), 'IOSWARM_MAX_PAYLOAD')
  assert.equal(keyOf('max-open-messages'), 'maxOpenMessages')
  assert.deepEqual(pickPassOn({ engine: 'lean', maxPayload: '2MB', rounds: '1x1', simulators: 3 }), { engine: 'lean', maxPayload: '2MB' })
})

test('declareOptions marks required options and shows defaults without setting them', async () => {
  const y = declareOptions(yargs(['--hosts', 'h1']).exitProcess(false).fail(false), 'fleet up')
  await assert.rejects(Promise.resolve().then(() => y.parse()), /Missing required argument/)
  const argv = await declareOptions(yargs([]), 'simulate').parseAsync()
  assert.equal(argv.clients, undefined, 'a default is applied by the normaliser, so "not given" can be told')
})
