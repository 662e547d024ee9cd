/**
 * The browser case of the recorder's tests, shared by its test files. A real browser session,
 * recorded and replayed: Chromium (headless, Debian's) runs a page that
 * uses socket.io-client against a socket.io 4 app (a login, a namespace, a room, acked emits,
 * binary data; or the same app on socket.io 2, or on python-socketio 5); the HAR is built from Chromium's DevTools Protocol events as Chrome's devtools
 * write it; `ioswarm record` turns it into a scenario; 50 clients replay it through the real
 * binary; and the app's own ledger sees, for every one of them, the same events in the same
 * order, with the same payload shapes and the same joins, as for the browser. Through the
 * recording proxy, the page is opened through `ioswarm record --proxy` while the HAR is taken
 * too: the proxy's scenario must be the HAR's (the same steps, acks, identity and measured
 * events; only the recorded pauses and where it came from may differ), and the proxy's is replayed.
 */
import assert from 'node:assert/strict'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { BIN, printedUrl, runCli } from '../helpers/cli.js'
import { waitFor } from '../helpers/wait.js'
import { chromiumMissing, launchChromium } from '../results/report/browser-harness.js'
import { recordHar } from './cdp-har.js'
import { startRecordedApp } from './recorded-app.js'
import { startRecordedAppV2 } from './recorded-app-v2.js'
import { startRecordedAppPython } from './recorded-app-python.js'

/** @typedef {import('./recorded-app.js').LedgerEntry} LedgerEntry */

const CLIENTS = 50

/**
 * Opens the page in Chromium until its script is done, and writes what passed as a HAR.
 * @param {import('node:test').TestContext} t
 * @param {string} pageUrl
 * @param {string} harPath
 */
export async function recordPage (t, pageUrl, harPath) {
  const browser = await launchChromium()
  t.after(() => browser.close())
  const page = await browser.newPage()
  const recorder = await recordHar(page)
  await page.goto(pageUrl)
  // Strings: these run in the page, where the page's script set done or failed.
  await page.waitForFunction('window.done === true || window.failed !== undefined', null, { timeout: 15000 })
  assert.equal(await page.evaluate('window.failed'), undefined)
  const har = await recorder.har()
  await browser.close()
  await writeFile(harPath, JSON.stringify(har))
}

/**
 * Records the page in Chromium with these transports, writes the scenario, replays it with 50
 * clients and checks the app's ledger (see the test files that call it).
 * @param {import('node:test').TestContext} t
 * @param {{ transports: string[], replayTransport: string, throughProxy?: boolean, version?: '2' | '4' | 'python' }} options
 *   the page's socket.io-client transports; the --transport record must print; whether the page is opened through the recording
 *   proxy; the app's socket.io (python: python-socketio 5)
 */
export async function recordAndReplay (t, { transports, replayTransport, throughProxy = false, version = '4' }) {
  const missing = chromiumMissing()
  if (missing) return t.skip(missing)
  const app = version === '2'
    ? await startRecordedAppV2(t, { transports })
    : version === 'python' ? await startRecordedAppPython(t, { transports }) : await startRecordedApp(t, { transports })
  if (app === null) return
  const dir = await mkdtemp(join(tmpdir(), 'ioswarm-browser-record-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  const proxy = throughProxy ? runCli(t, [BIN, 'record', '--proxy', '0', '--target', app.url, '--out', join(dir, 'proxy.mjs')]) : null
  const pageUrl = proxy ? (await printedUrl(proxy, 'recording proxy on')).replace(/\/$/, '') : app.url

  await recordPage(t, pageUrl, join(dir, 'app.har'))
  const browserSide = await app.entries()
  assert.equal(browserSide.length, 1)
  const [recorded] = browserSide
  assert.deepEqual(recorded.events.map((e) => e.event), ['join', 'chat', 'avatar', 'typing'])

  const record = await runCli(t, [BIN, 'record', '--har', join(dir, 'app.har'), '--out', join(dir, 'app.mjs')])
  assert.equal(record.code, 0, record.stderr)
  assert.match(record.stderr, /sent: \/chat join\(room-7\), \/chat chat \(ack\), \/chat avatar \(ack\), \/chat typing/)
  assert.match(record.stderr, /login: POST \/login/)
  const module = await readFile(join(dir, 'app.mjs'), 'utf8')
  assert.doesNotMatch(module, /pw-Alice-2026/, 'the password stays out of the scenario')
  // socket.io 2 clients have no auth: the page's token and user went in the query.
  if (version === '2') assert.match(module, /query: \{ "token": ctx\.login\.token, "user": ctx\.row\.user \}/)
  else assert.match(module, /auth: \{ token: ctx\.login\.token, user: ctx\.row\.user \}/)

  let printed = record.stderr
  if (proxy) {
    proxy.child.kill('SIGINT')
    const proxied = await proxy
    assert.equal(proxied.code, 0, proxied.stderr)
    const same = (/** @type {string} */ text, /** @type {string} */ name) => text
      .replaceAll(new URL(pageUrl).host, new URL(app.url).host).replaceAll(`${name}.`, 'NAME.')
      .replace(/^ \* Recorded by .*\n/m, '').replace(/^recorded .*; replaying /m, '')
      .replace(/\(sid [^,]+, /, '(').replace(/step\((\d+), \d+, /g, 'step($1, PAUSE, ')
      .replace(/^.*(wrote|keep) .*\n/gm, '')
    assert.equal(same(proxied.stderr.slice(proxied.stderr.indexOf('\nrecorded ') + 1), 'proxy'), same(record.stderr, 'app'))
    assert.equal(same(await readFile(join(dir, 'proxy.mjs'), 'utf8'), 'proxy'), same(module, 'app'))
    printed = proxied.stderr
  }
  // The line record printed, with the files where they are and the run's own limits.
  const line = printed.trim().split('\n').at(-1) ?? ''
  const words = line.trim().split(/\s+/).slice(2).map((w) => (w.endsWith('.mjs') || w.endsWith('.csv') ? join(dir, w) : w))
  assert.deepEqual(words.slice(0, 2), ['--url', app.url])
  assert.deepEqual(words.slice(2, version === '2' ? 6 : 4), [...(version === '2' ? ['--eio', '3'] : []), '--transport', replayTransport])
  // The sio engine: the page's binary avatar is a binary attachment only there (the lean engine sends JSON only).
  await replayAs(t, { app, words, engine: 'sio', recorded, seen: browserSide.length })
}

/**
 * Replays the scenario with 50 clients of one engine and checks that the app's ledger sees
 * each as it saw the browser.
 * @param {import('node:test').TestContext} t
 * @param {{ app: { entries: () => Promise<LedgerEntry[]> }, words: string[], engine: string, recorded: LedgerEntry, seen: number }} replay
 *   the line record printed (files in place); the browser's ledger entry; how many entries the ledger held before this replay
 * @returns {Promise<number>} how many entries the ledger holds after it
 */
async function replayAs (t, { app, words, engine, recorded, seen }) {
  const replay = runCli(t, [BIN, 'simulate', ...words.filter((w, k) => w !== '--clients' && words[k - 1] !== '--clients'),
    '--clients', String(CLIENTS), '--engine', engine, '--ramp', '2s', '--duration', '50s', '--json'], { env: { SCENARIO_SPEED: '4' } })
  // The swarm's look at the server before it starts connects once with the first client's identity, and sends nothing.
  /** @type {LedgerEntry[]} */
  let entries = []
  const replayed = () => entries.slice(seen).filter((e) => e.events.length > 0)
  const complete = () => replayed().filter((e) => e.events.length >= recorded.events.length).length
  await waitFor(async () => {
    entries = await app.entries()
    return replayed().length === CLIENTS && complete() === CLIENTS
  }, { timeoutMs: 40000, message: () => `${CLIENTS} replays by the ${engine} engine done (${complete()} so far)` })
  replay.child.kill('SIGINT')
  const done = await replay
  assert.equal(done.code, 0, done.stderr)
  entries = await app.entries()

  const texts = new Set()
  for (const entry of replayed()) {
    assert.equal(entry.user, 'alice')
    assert.deepEqual(entry.events.map((e) => e.event), recorded.events.map((e) => e.event), engine)
    assert.deepEqual(entry.events.map((e) => e.shape), recorded.events.map((e) => e.shape), engine)
    assert.deepEqual(entry.joins, recorded.joins, engine)
    const text = entry.events.find((e) => e.event === 'chat')?.text ?? ''
    assert.match(text, /^hello there #\d+\.1$/)
    texts.add(text)
  }
  assert.equal(texts.size, CLIENTS, 'each client\'s line is its own')
  const result = JSON.parse(done.stdout)
  const counts = result.custom?.counts ?? {}
  assert.equal(counts.steps_done, CLIENTS * 4, JSON.stringify(result.custom))
  assert.equal(counts.replays_complete, CLIENTS)
  return entries.length
}
