import { test } from 'node:test'
import assert from 'node:assert/strict'
import { createProcSampler, establishedInodes, parseStat } from '../../../server/probe/proc-sampler.js'
import { startTcpChild } from '../processes.js'
import { waitFor } from '../../helpers/wait.js'

test('parseStat counts fields from the last parenthesis, whatever the command name holds', () => {
  const fields = ['S', ...Array.from({ length: 49 }, (_, i) => String(i + 4))]
  fields[11] = '250' // utime
  fields[12] = '50' // stime
  fields[17] = '7' // num_threads
  fields[19] = '123456' // starttime
  const stat = parseStat(`4242 (odd) name (x)) ${fields.join(' ')}\n`)
  assert.deepEqual(stat, { state: 'S', utimeTicks: 250, stimeTicks: 50, threads: 7, startTicks: '123456' })
})

test('establishedInodes keeps state 01 rows only', () => {
  const table = [
    '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
    '   0: 0100007F:1F90 00000000:0000 0A 00000000:00000000 00:00000000 00000000  1000        0 111 1 0000000000000000 100 0 0 10 0',
    '   1: 0100007F:1F90 0100007F:C350 01 00000000:00000000 00:00000000 00000000  1000        0 222 1 0000000000000000 20 4 30 10 -1',
    '   2: 0100007F:C350 0100007F:1F90 06 00000000:00000000 03:00000F2E 00000000     0        0 0 3 0000000000000000'
  ].join('\n')
  assert.deepEqual(establishedInodes(table), ['222'])
})

test('a live process: its own established connections, CPU and RSS; ' +
  'null once it exits', { skip: process.platform !== 'linux' && 'needs Linux /proc' }, async (t) => {
  const child = await startTcpChild(t)
  const sampler = await createProcSampler(/** @type {number} */ (child.pid))
  // net/tcp is read page by page while other tests' sockets come and go: a row may be missed or
  // repeated in one read (repeats are counted once). Of the reads in a second, one must see exactly 2.
  /** @type {(number | undefined)[]} */
  const seen = []
  const sample = await waitFor(async () => {
    const read = await sampler.sample()
    seen.push(read?.connected)
    return read?.connected === 2 ? read : null
  }, {
    timeoutMs: 1000,
    intervalMs: 50,
    message: () => `both ends of its loopback connection, and nothing of this test process (reads: ${JSON.stringify(seen)})`
  })
  assert.ok(sample)
  assert.equal(sample.connected, 2)
  assert.ok(sample.rssBytes > 10e6 && sample.cpuPct >= 0 && sample.threads > 1)
  assert.equal(sample.loopDelayP99Ms, null, 'unknown from outside, not 0')
  assert.deepEqual(sample.byTransport, { websocket: null, polling: null })
  child.stdin?.end()
  await new Promise((resolve) => child.once('exit', resolve))
  assert.equal(await sampler.sample(), null)
})

test('a pid that is not there is refused at once', { skip: process.platform !== 'linux' && 'needs Linux /proc' }, async () => {
  await assert.rejects(createProcSampler(2 ** 22), /--pid 4194304: no such process/)
})
