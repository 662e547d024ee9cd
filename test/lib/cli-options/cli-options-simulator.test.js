import { test } from 'node:test'
import assert from 'node:assert/strict'
import { OPTIONS, keyOf as fullKeyOf, optionsOf, parseOptions, passOnOptions as fullPassOn } from '../../../lib/cli-options/index.js'
import { SIMULATOR_OPTIONS, keyOf, parseSimulateOptions, passOnOptions } from '../../../lib/cli-options/simulator-rows.js'
import { rowsOf } from '../../../lib/cli-options/rows.js'

test('the simulator\'s table holds the very rows of simulate, and those passed on, that the full table has, in its order', () => {
  assert.deepEqual(rowsOf(SIMULATOR_OPTIONS, 'simulate').map((o) => o.name), optionsOf('simulate').map((o) => o.name))
  assert.ok(rowsOf(SIMULATOR_OPTIONS, 'simulate').every((o, i) => o === optionsOf('simulate')[i]), 'the same row objects')
  assert.deepEqual(passOnOptions(), fullPassOn())
  // Every row of it is one of the full table's (no row of its own), and it has every row a simulator parses.
  assert.ok(SIMULATOR_OPTIONS.every((o) => OPTIONS.includes(o)))
  assert.deepEqual(OPTIONS.filter((o) => o.commands.includes('simulate') || o.passOn).filter((o) => !SIMULATOR_OPTIONS.includes(/** @type {any} */ (o))), [])
  assert.ok(optionsOf('simulate').length >= 60 && passOnOptions().length >= 40, `${optionsOf('simulate').length} rows, ${passOnOptions().length} passed on`)
  assert.equal(keyOf, fullKeyOf)
})

test('parseSimulateOptions gives what parseOptions(\'simulate\') gives: defaults, parsed values, the same errors', () => {
  const inputs = [
    { url: 'http://127.0.0.1:3000' },
    {
      url: 'http://127.0.0.1:3000',
      clients: '250',
      transport: 'websocket:70,polling:30',
      json: true,
      metricsPort: '0',
      otlp: 'http://collector:4318',
      redis: 'redis://r:6379',
      run: 'r1'
    },
    { url: 'http://127.0.0.1:3000', header: 'a: 1\nb: 2', emit: 'chat', emitInterval: '1s', phases: 'ramp 10s to 100, hold 5s' }
  ]
  for (const input of inputs) assert.deepEqual(parseSimulateOptions(input), parseOptions('simulate', input))
  assert.equal(parseSimulateOptions({ otlp: 'http://c:4318' }).otlp, 'http://c:4318/v1/metrics')
  for (const bad of [{ clients: 'many' }, { engine: 'fast' }, { otlpInterval: '10ms' }]) {
    assert.throws(() => parseSimulateOptions(bad), (error) => {
      assert.throws(() => parseOptions('simulate', bad), { message: /** @type {Error} */ (error).message })
      return /--/.test(/** @type {Error} */ (error).message)
    })
  }
})
