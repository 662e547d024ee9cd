/**
 * Malformed input never crashes the lean engine: the client that got it ends with
 * 'parse error' (or PAYLOAD_TOO_LARGE past the payload limit).
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { leanEngine } from '../../../simulator/engines/lean.js'
import { recorder, engineOptions, VARIANTS } from './lean/helpers.js'
import { waitFor } from '../../helpers/wait.js'
import { startFakePeer } from './lean/fake-peer.js'
import { startIoServer } from '../../helpers/io-server.js'
import { PAYLOAD_TOO_LARGE } from '../../../simulator/wire/limits.js'

const placeholder = (/** @type {number} */ num) => `{"_placeholder":true,"num":${num}}`

/** @type {{ name: string, ws?: (string | Buffer)[], polling?: string[], delivered?: number, reason?: string, extra?: object }[]} */
const CASES = [
  { name: 'an unknown Engine.IO packet type', ws: ['9oops'], polling: ['9oops'] },
  { name: 'an unknown Socket.IO packet type', ws: ['47["broadcast"]'], polling: ['47["broadcast"]'] },
  { name: 'broken JSON', ws: ['42["broadcast",{"id":1'], polling: ['42["broadcast",{"id":1'] },
  { name: 'an event payload that is not an array', ws: ['42{"id":1}'], polling: ['42{"id":1}'] },
  { name: 'a reserved event name', ws: ['42["connect"]'], polling: ['42["connect"]'] },
  { name: 'a malformed attachment count', ws: ['45x-["broadcast"]'], polling: ['45x-["broadcast"]'] },
  { name: 'too many attachments', ws: ['4511-["broadcast"]'], polling: ['4511-["broadcast"]'] },
  {
    name: 'a placeholder naming a missing attachment',
    ws: [`451-["broadcast",${placeholder(3)}]`, Buffer.from([1])],
    polling: [`451-["broadcast",${placeholder(3)}]\x1ebAQ==`]
  },
  {
    name: 'text where an attachment was due',
    ws: [`452-["broadcast",${placeholder(0)},${placeholder(1)}]`, Buffer.from([1]), '42["broadcast",1]'],
    polling: [`452-["broadcast",${placeholder(0)},${placeholder(1)}]\x1ebAQ==\x1e42["broadcast",1]`]
  },
  { name: 'an attachment nobody announced', ws: [Buffer.from([1, 2])], polling: ['bAQI='] },
  { name: 'a payload cut after a good packet (empty packet)', ws: ['42["broadcast",1]', ''], polling: ['42["broadcast",1]\x1e'], delivered: 1 },
  {
    name: 'a frame over maxPayloadBytes',
    ws: [`42["broadcast","${'x'.repeat(300)}"]`],
    polling: [`42["broadcast","${'x'.repeat(300)}"]`],
    reason: PAYLOAD_TOO_LARGE,
    extra: { maxPayloadBytes: 200 }
  }
]

for (const { label, transport, extra } of VARIANTS) {
  test(`${label}: malformed input ends the client with a reason, never throws`, async (t) => {
    for (const c of CASES) {
      const peer = await startFakePeer(t, { ws: c.ws, polling: c.polling })
      const { log, events } = recorder()
      const pool = leanEngine.createPool(engineOptions(peer.url, { reconnect: false, ...extra, ...c.extra }), events)
      t.after(() => pool.close())
      pool.connect(0, transport)
      await waitFor(() => log.disconnects.length === 1, { message: `the end of the client (${c.name})` })
      assert.deepEqual(log.disconnects, [{ i: 0, reason: c.reason ?? 'parse error' }], c.name)
      assert.equal(log.messages.length, c.delivered ?? 0, c.name)
    }
  })
}

test('binary attachments in a polling payload are decoded from base64 (a real socket.io 4 server)', async (t) => {
  const server = await startIoServer(t)
  // Engine.IO 4 polling payloads are text: the server writes the attachment as a `b` packet in base64.
  /** @type {string[]} */
  const payloads = []
  server.io.engine.on('connection', (/** @type {any} */ conn) => {
    conn.on('packetCreate', (/** @type {{ type: string, data: unknown }} */ p) => {
      if (p.type === 'message') payloads.push(`${conn.transport.name}:${Buffer.isBuffer(p.data) ? 'binary' : 'text'}`)
    })
  })
  server.io.on('connection', (socket) => socket.emit('broadcast', { blob: Buffer.from([1, 2, 3]) }))
  const { log, events } = recorder()
  const pool = leanEngine.createPool(engineOptions(server.url, { reconnect: false }), events)
  t.after(() => pool.close())
  pool.connect(0, 'polling')
  await waitFor(() => log.messages.length === 1, { message: 'the binary event' })
  assert.deepEqual(log.messages[0].args, [{ blob: Buffer.from([1, 2, 3]) }])
  assert.deepEqual(payloads.slice(-2), ['polling:text', 'polling:binary'], 'the event and its attachment went over polling')
})
