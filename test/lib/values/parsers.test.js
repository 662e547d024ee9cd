import { test } from 'node:test'
import assert from 'node:assert/strict'
import {
  parseInteger, parseDurationMs, parseBytes, parseHttpUrl, parseTransportMix, assignTransports, parseRounds, formatRounds, parseNamespace, MAX_NAMESPACES
} from '../../../lib/values/parsers.js'
import { normalizeSimOptions } from '../../../simulator/sim-options.js'
import { parseOptions } from '../../../lib/cli-options/index.js'
import { appTargets } from '../../../runner/run-options.js'
import { IoswarmError, EXIT } from '../../../lib/errors.js'

/** @param {() => unknown} fn @param {RegExp} message */
function rejectsUsage (fn, message) {
  assert.throws(fn, (error) => {
    assert.ok(error instanceof IoswarmError)
    assert.equal(error.exitCode, EXIT.USAGE)
    assert.match(error.message, message)
    return true
  })
}

test('parseInteger accepts whole numbers in range and names the flag otherwise', () => {
  assert.equal(parseInteger('500', '--clients'), 500)
  rejectsUsage(() => parseInteger('0', '--clients'), /^--clients must be a whole number from 1/)
  rejectsUsage(() => parseInteger('abc', '--clients'), /--clients .*"abc"/)
  rejectsUsage(() => parseInteger('1.5', '--clients'), /--clients/)
})

test('parseDurationMs reads units and bare numbers in the default unit', () => {
  assert.equal(parseDurationMs('10s', '--ramp'), 10000)
  assert.equal(parseDurationMs('0', '--ramp'), 0)
  assert.equal(parseDurationMs(2, '--duration'), 2000)
  assert.equal(parseDurationMs('250ms', '--ramp'), 250)
  assert.equal(parseDurationMs('1.5m', '--ramp'), 90000)
  assert.equal(parseDurationMs('5000', '--rounds', { defaultUnit: 'ms' }), 5000)
  rejectsUsage(() => parseDurationMs('soon', '--ramp'), /--ramp must be a duration/)
  rejectsUsage(() => parseDurationMs('-1s', '--ramp'), /--ramp/)
})

test('parseBytes reads bare bytes and 1000- or 1024-based units, bounded', () => {
  assert.equal(parseBytes('1000000', '--max-payload'), 1e6)
  assert.equal(parseBytes(2048, '--max-payload'), 2048)
  assert.equal(parseBytes('10MB', '--max-payload'), 10e6)
  assert.equal(parseBytes('512 kb', '--max-payload'), 512000)
  assert.equal(parseBytes('1MiB', '--max-payload'), 1048576)
  assert.equal(parseBytes('1.5KiB', '--max-payload'), 1536)
  assert.equal(parseBytes('1GB', '--max-payload'), 1e9)
  rejectsUsage(() => parseBytes('big', '--max-payload'), /^--max-payload must be a size such as 1000000, 512KB, 10MB or 1MiB .*"big"/)
  rejectsUsage(() => parseBytes('-1', '--max-payload'), /--max-payload must be a size/)
  rejectsUsage(() => parseBytes('10 MBs', '--max-payload'), /--max-payload must be a size/)
  rejectsUsage(() => parseBytes('10', '--max-payload', { min: 1000 }), /^--max-payload must be from 1000 to \d+ bytes, got "10" \(10 bytes\)/)
  rejectsUsage(() => parseBytes('1GiB', '--max-payload', { max: 1e8 }), /--max-payload must be from 0 to 100000000 bytes, got "1GiB" \(1073741824 bytes\)/)
})

test('parseHttpUrl normalises ws:// and rejects what is not a URL', () => {
  assert.equal(parseHttpUrl('http://localhost:3000/', '--url'), 'http://localhost:3000')
  assert.equal(parseHttpUrl('ws://127.0.0.1:3000', '--url'), 'http://127.0.0.1:3000')
  rejectsUsage(() => parseHttpUrl('localhost:3000', '--url'), /--url must be an http/)
  rejectsUsage(() => parseHttpUrl('not a url', '--url'), /--url must be a URL/)
  rejectsUsage(() => parseHttpUrl('ftp://x', '--url'), /--url/)
})

test('parseTransportMix reads single transports and weighted mixes', () => {
  assert.deepEqual(parseTransportMix('polling'), [{ transport: 'polling', weight: 1 }])
  assert.deepEqual(parseTransportMix('websocket:70,polling:30'), [
    { transport: 'websocket', weight: 70 }, { transport: 'polling', weight: 30 }
  ])
  rejectsUsage(() => parseTransportMix('carrier-pigeon'), /--transport has an unknown transport "carrier-pigeon": must be one of websocket, polling, upgrade/)
  rejectsUsage(() => parseTransportMix('websocket:0,polling:1'), /weight of websocket must be a positive number/)
  rejectsUsage(() => parseTransportMix('websocket:x'), /weight of websocket/)
  rejectsUsage(() => parseTransportMix('polling,polling'), /names polling twice/)
})

test('assignTransports gives exact shares, interleaved along the ramp', () => {
  const out = assignTransports(parseTransportMix('websocket:70,polling:30'), 100)
  assert.equal(out.filter((t) => t === 'websocket').length, 70)
  assert.equal(out.filter((t) => t === 'polling').length, 30)
  // Every stretch of 10 clients carries the mix, not all WebSocket first.
  for (let i = 0; i < 100; i += 10) {
    assert.equal(out.slice(i, i + 10).filter((t) => t === 'polling').length, 3)
  }
  assert.deepEqual(assignTransports(parseTransportMix('upgrade'), 3), ['upgrade', 'upgrade', 'upgrade'])
})

test('parseRounds reads COUNTxINTERVAL lists', () => {
  const rounds = parseRounds('10x5000,10x2s,3x1000')
  assert.deepEqual(rounds, [{ count: 10, intervalMs: 5000 }, { count: 10, intervalMs: 2000 }, { count: 3, intervalMs: 1000 }])
  assert.equal(formatRounds(rounds), '10x5000,10x2000,3x1000')
  rejectsUsage(() => parseRounds('10by5'), /--rounds has "10by5": each round must be COUNTxINTERVAL/)
  rejectsUsage(() => parseRounds('0x100'), /count in 0x100/)
})

test('parseNamespace requires a leading slash', () => {
  assert.equal(parseNamespace('/chat'), '/chat')
  // One namespace check for every command: the message is the server's (test/server/cli.test.js).
  rejectsUsage(() => parseNamespace('chat'), /--namespace must be a namespace: \/ followed by/)
})

test('one namespace check and one limit: the simulator, the reference server, a run and a broadcast refuse alike', () => {
  const many = Array.from({ length: MAX_NAMESPACES + 1 }, (_, k) => `/n${k}`)
  const refusers = {
    simulate: (/** @type {string[]} */ names) => normalizeSimOptions({ namespace: names }),
    serve: (/** @type {string[]} */ names) => parseOptions('serve', { namespace: names }),
    run: (/** @type {string[]} */ names) => appTargets({ namespace: names }),
    broadcast: (/** @type {string[]} */ names) => parseOptions('broadcast', { namespace: names })
  }
  for (const [command, refuse] of Object.entries(refusers)) {
    assert.doesNotThrow(() => refuse(many.slice(0, MAX_NAMESPACES)), command)
    rejectsUsage(() => refuse(many), new RegExp(`^--namespace must be given 1 to ${MAX_NAMESPACES} times, got ${MAX_NAMESPACES + 1}$`))
    rejectsUsage(() => refuse(['/a,b']), /^--namespace must be a namespace: \/ followed by up to 199 characters other than spaces and commas, got "\/a,b"$/)
    rejectsUsage(() => refuse(['/ioswarm-admin']), /^--namespace must not be the admin namespace \/ioswarm-admin$/)
  }
})
