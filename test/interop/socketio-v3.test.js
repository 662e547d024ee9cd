/**
 * socket.io 3.1 (pinned in test/peers): both engines, every transport.
 */
import { test } from 'node:test'
import { startSocketIoPeer } from '../helpers/peers.js'
import { MATRIX, caseName, measureAgainst } from './measure.js'

test('socket.io 3', { concurrency: 3 }, async (t) => {
  await Promise.all(MATRIX.map((c) => t.test(caseName(c), async (t) => { await measureAgainst(t, await startSocketIoPeer(t, { version: '3' }), c) })))
})
