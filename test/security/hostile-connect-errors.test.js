import { test } from 'node:test'
import assert from 'node:assert/strict'
import { randomUUID } from 'node:crypto'
import http from 'node:http'
import { MAX_REASON_CHARS, MAX_REASONS, OTHER_REASONS, reasonKey } from '../../lib/reasons.js'
import { buildReport, reasonsCsv } from '../../results/index.js'
import { sumClients } from '../../results/merge/aggregate.js'
import { formatSimSummary } from '../../simulator/reporting/summary-text.js'
import { runSwarm } from '../../simulator/swarm/swarm.js'
import { makeRun } from '../fixtures/make-run-fixture.js'
import { waitFor } from '../helpers/wait.js'
import { startIoServer } from '../helpers/io-server.js'

/** What a server under test may say when it refuses a client (CONNECT_ERROR). */
const HOSTILE = ['__proto__', 'constructor', 'toString', '<script>alert(1)</script>', 'x'.repeat(100_000),
  'two\nlines\r\n\u001b[31mred\u202e', '=HYPERLINK("http://evil.example")']

/**
 * A socket.io server on a free loopback port whose middleware refuses every client with
 * `messageFor(n)`, n = 0, 1, … in order of arrival.
 * @param {import('node:test').TestContext} t
 * @param {(n: number) => string} messageFor
 */
async function startRefusingServer (t, messageFor) {
  const { io, port } = await startIoServer(t)
  let refused = 0
  io.use((socket, next) => next(new Error(messageFor(refused++))))
  return { url: `http://127.0.0.1:${port}`, refused: () => refused }
}

/**
 * Runs a swarm of `clients` against the server until each has had its connect error.
 * @param {string} url
 * @param {string} engine
 * @param {number} clients
 */
async function swarmUntilRefused (url, engine, clients) {
  const controller = new AbortController()
  let errors = 0
  // A query that differs per client: a refused first identity stops a swarm only when every client shares it.
  const result = runSwarm({ url, clients, engine, transport: 'websocket', ramp: 0, duration: 60, id: `${engine}-sim`, query: 'client={{i}}' }, {
    signal: controller.signal,
    onProgress: (p) => { errors = p.errors }
  })
  try {
    await waitFor(() => errors >= clients, { timeoutMs: 20000, message: () => `${clients} connect errors (have ${errors})` })
  } finally {
    controller.abort()
  }
  return result
}

for (const engine of ['sio', 'lean']) {
  test(`${engine}: hostile CONNECT_ERROR texts are counted exactly, under bounded and escaped keys`, async (t) => {
    const server = await startRefusingServer(t, (n) => HOSTILE[n % HOSTILE.length])
    const result = await swarmUntilRefused(server.url, engine, HOSTILE.length * 3)
    const errors = result.clients.errors
    assert.equal(Object.getPrototypeOf(errors), Object.prototype, 'the record keeps its prototype')
    assert.deepEqual(Object.keys(errors).sort(), HOSTILE.map(reasonKey).sort())
    for (const reason of HOSTILE) assert.equal(errors[reasonKey(reason)], 3, JSON.stringify(reason.slice(0, 40)))
    assert.ok(Object.hasOwn(errors, '__proto__'))
    assert.equal(result.clients.failed, HOSTILE.length * 3)
    for (const key of Object.keys(errors)) {
      assert.ok(key.length <= MAX_REASON_CHARS, `${key.length} chars`)
      assert.doesNotMatch(key, /[\u0000-\u001f\u007f\u202e]/) // eslint-disable-line no-control-regex
    }
    assert.ok(Object.keys(errors).some((k) => /^x+… \[100000 chars\]$/.test(k)), 'the 100 KB text is cut with a marker')
    // The terminal summary carries the same escaped keys: no raw escape sequence or newline.
    const line = formatSimSummary(result).split('\n').find((l) => l.startsWith('connect errors:')) ?? ''
    assert.match(line, /__proto__: 3/)
    assert.match(line, /two\\nlines\\r\\n\\u001b\[31mred\\u202e: 3/)
  })

  test(`${engine}: a different text for every client folds into ${JSON.stringify(OTHER_REASONS)} past ${MAX_REASONS} reasons`, async (t) => {
    const clients = MAX_REASONS + 20
    const server = await startRefusingServer(t, () => `refused ${randomUUID()}`)
    const result = await swarmUntilRefused(server.url, engine, clients)
    const errors = result.clients.errors
    assert.equal(Object.keys(errors).length, MAX_REASONS + 1)
    assert.equal(errors[OTHER_REASONS], 20)
    assert.equal(Object.values(errors).reduce((a, b) => a + b, 0), clients, 'every error counted once')
  })
}

test('report and reasons.csv from both engines\' results: counts summed, every reason escaped', async (t) => {
  const server = await startRefusingServer(t, (n) => HOSTILE[n % HOSTILE.length])
  /** @type {import('../../lib/schema/result-schema.js').SimResult[]} */
  const results = []
  for (const engine of ['sio', 'lean']) results.push(await swarmUntilRefused(server.url, engine, HOSTILE.length))
  const finals = results.map((r) => ({ simulator: r.id, clients: r.clients, health: r.health.summary, clock: r.clock, endedAt: r.endedAt }))
  const run = makeRun()
  run.distributions = [{ ...run.distributions[0], clients: sumClients(finals, []) }]
  assert.equal(Object.getOwnPropertyDescriptor(run.distributions[0].clients.errors, '__proto__')?.value, 2, 'one __proto__ from each simulator')

  const html = buildReport(run, { generatedAt: 0 })
  const section = html.slice(html.indexOf('<h3>Connect errors and disconnects</h3>'))
  assert.ok(section.length < html.length, 'the report has the reasons table')
  assert.ok(!html.includes('<script>alert(1)</script>'), 'a reason is not markup in the report')
  assert.ok(section.includes('&#60;script&#62;alert(1)&#60;/script&#62;</td><td class="num">2</td>'))
  assert.ok(section.includes('<td>__proto__</td><td class="num">2</td>'))
  assert.ok(!html.includes('x'.repeat(MAX_REASON_CHARS)), 'no 100 KB cell')

  const csv = reasonsCsv(run.distributions)
  const lines = csv.split('\r\n')
  assert.equal(lines[0], 'distribution,kind,reason,count')
  assert.ok(lines.includes('2x500,connect error,__proto__,2'))
  assert.ok(lines.includes('2x500,connect error,"\'=HYPERLINK(""http://evil.example"")",2'), 'a formula is defused and quoted')
  assert.ok(lines.includes('2x500,connect error,two\\nlines\\r\\n\\u001b[31mred\\u202e,2'), 'one row: the newline is escaped')
  assert.equal(lines.filter((l) => l.includes(',connect error,')).length, HOSTILE.length)
})

test('a handshake refused with a hostile body: the error in the result is escaped and bounded', async (t) => {
  const httpServer = http.createServer((req, res) => res.writeHead(404).end(`\u001b[2J\u001b]0;pwned\u0007no\nsocket.io here${'y'.repeat(10_000)}`))
  await new Promise((resolve) => httpServer.listen(0, '127.0.0.1', () => resolve(undefined)))
  t.after(() => new Promise((resolve) => httpServer.close(() => resolve(undefined))))
  const { port } = /** @type {import('node:net').AddressInfo} */ (httpServer.address())
  // 404 on both transports: the swarm does not start (exit 2), and the error says why.
  const error = await runSwarm({ url: `http://127.0.0.1:${port}`, clients: 1, ramp: 0, duration: 0.2, reconnect: false }).then(
    () => '',
    (e) => String(e.message)
  )
  // Control characters escaped, the line break folded into a space, the rest cut short.
  assert.match(error, /polling handshake answered HTTP 404 \(nothing at \/socket\.io\/: [^)]*\): "\\u001b\[2J\\u001b\]0;pwned\\u0007no socket\.io herey+…"/)
  assert.doesNotMatch(error, /[\u0000-\u001f]/) // eslint-disable-line no-control-regex
  assert.ok(error.length < 1000, `${error.length} chars`)
})
