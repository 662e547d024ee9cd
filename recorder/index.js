/**
 * The public entry of recorder/: a recorded browser session (a HAR file, or what passed through
 * the recording proxy) turned into a scenario module for `--scenario`. One model (connections → frames with times → Socket.IO packets →
 * steps) from which the module, its feeder and the summary are written.
 */
import { randomBytes } from 'node:crypto'
import { readFile, rename, rm, writeFile } from 'node:fs/promises'
import { basename, dirname, join, relative } from 'node:path'
import { invalidOption } from '../lib/errors.js'
import { badRecording, readHar } from './har.js'
import { buildModel } from './model.js'
import { plainReplay } from './plain.js'
import { startProxy } from './proxy/proxy-server.js'
import { VERSION } from '../lib/version.js'
import { writeScenario } from './writer.js'

export { readHar } from './har.js'
export { buildModel } from './model.js'
export { writeScenario } from './writer.js'
export { formatRecordSummary } from './summary.js'

/**
 * @typedef {object} RecordResult
 * @property {import('./model.js').RecordingModel} model
 * @property {ReturnType<typeof writeScenario> | null} written the scenario; null for a plain WebSocket recording
 * @property {import('./plain.js').PlainReplay | null} plain a plain WebSocket recording's options (--out NAME.json)
 * @property {{ scenario: string, feeder: string | null }} files the paths written (scenario: the module, or the options file)
 * @property {string} from how it was recorded, for the summary: 'in a HAR by Firefox 128.0', 'through the recording proxy to …'
 */

/**
 * Reads a HAR and writes the scenario (and its feeder, when per-user values were found). Both
 * files are written whole or not at all (a temporary file renamed into place).
 * @param {{ har: string, out: string, feeder?: string | null }} options paths
 * @returns {Promise<RecordResult>}
 */
export async function recordHar ({ har, out, feeder = null }) {
  checkOut(out)
  let text
  try {
    text = await readFile(har, 'utf8')
  } catch (error) {
    throw invalidOption('--har', `cannot read ${har}: ${/** @type {Error} */ (error).message}`)
  }
  return writeRecording(readHar(text, basename(har)), { source: basename(har), out, feeder })
}

/**
 * Runs the recording proxy until the signal aborts, then writes the scenario from what passed,
 * as recordHar does from a HAR (one model, one writer).
 * @param {{ target: string, port: number, host?: string | null, out: string, feeder?: string | null,
 *   trust?: import('../lib/input/tls-trust.js').TlsTrust | null, signal: AbortSignal,
 *   onListening?: (proxy: import('./proxy/proxy-server.js').RecordingProxy) => void }} options
 * @returns {Promise<RecordResult>}
 */
export async function recordProxy ({ target, port, host = null, out, feeder = null, trust = null, signal, onListening }) {
  checkOut(out)
  const url = targetUrl(target)
  let proxy
  try {
    proxy = await startProxy({ target: url, port, host: host ?? '127.0.0.1', trust, creator: `ioswarm ${VERSION} recording proxy` })
  } catch (error) {
    throw invalidOption('--proxy', `cannot listen on ${host ?? '127.0.0.1'}:${port}: ${/** @type {Error} */ (error).message}`)
  }
  onListening?.(proxy)
  if (!signal.aborted) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }))
  const recording = await proxy.close()
  return writeRecording(recording, { source: `the recording proxy to ${url.origin}`, out, feeder, proxied: true })
}

/**
 * The target of the recording proxy: an http:// or https:// URL.
 * @param {string} text
 */
function targetUrl (text) {
  let url
  try {
    url = new URL(text)
  } catch {
    throw invalidOption('--target', `must be the app's URL (http://host:port or https://host), got ${JSON.stringify(text)}`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw invalidOption('--target', `must be an http:// or https:// URL, got ${JSON.stringify(text)}`)
  return url
}

/** @param {string} out */
function checkOut (out) {
  if (!/\.(m?js|json)$/.test(out)) {
    throw invalidOption('--out', `must name a .mjs (or .js) module, or a .json options file for a plain WebSocket recording, got ${JSON.stringify(out)}`)
  }
}

/**
 * The model of a recording, its scenario and feeder written whole.
 * @param {import('./har.js').HarRecording} recording
 * @param {{ source: string, out: string, feeder: string | null, proxied?: boolean }} files where it came from (proxied: the proxy) and where it goes
 * @returns {Promise<RecordResult>}
 */
async function writeRecording (recording, { source, out, feeder, proxied = false }) {
  const model = buildModel(recording)
  const from = proxied ? `through ${source}` : `in a HAR by ${model.creator}`
  if (out.endsWith('.json')) return writePlain(model, { source, out, from })
  checkModel(model, source, proxied ? recording.exchanges.length : null)
  const feederPath = feeder ?? out.replace(/\.m?js$/, '.users.csv')
  const written = writeScenario(model, { source, scenario: basename(out), feeder: relative(dirname(out), feederPath) || basename(feederPath) })
  if (written.csv !== null) await writeWhole(feederPath, written.csv)
  await writeWhole(out, written.module)
  return { model, written, plain: null, from, files: { scenario: out, feeder: written.csv === null ? null : feederPath } }
}

/**
 * A plain WebSocket recording's replay, as the options of a --config file (the protocol takes
 * no scenario module): the connection that carried the most frames.
 * @param {import('./model.js').RecordingModel} model
 * @param {{ source: string, out: string, from: string }} files
 * @returns {Promise<RecordResult>}
 */
async function writePlain (model, { source, out, from }) {
  if (model.sessions.length > 0) {
    throw invalidOption('--out', `${source} holds a Socket.IO session: it is written as a scenario module, ` +
      'give --out NAME.mjs (a .json file is for plain WebSocket recordings)')
  }
  const socket = [...model.plain].sort((a, b) => b.frames.length - a.frames.length)[0]
  if (socket === undefined) throw badRecording(`${source} has no plain WebSocket connection with its frames to write as --protocol websocket options`)
  const plain = plainReplay(socket)
  await writeWhole(out, `${JSON.stringify(plain.config, null, 2)}\n`)
  return { model, written: null, plain, from, files: { scenario: out, feeder: null } }
}

/**
 * Refuses a recording with nothing to replay, naming what is missing.
 * @param {import('./model.js').RecordingModel} model
 * @param {string} name
 * @param {number | null} exchanges how many requests passed through the recording proxy (null: a HAR)
 */
function checkModel (model, name, exchanges) {
  if (model.sessions.length > 0) return
  if (exchanges !== null && model.unknown.length === 0 && model.plain.length === 0) {
    throw badRecording(`${name} saw no Socket.IO session (${exchanges} request(s) passed, none to an Engine.IO URL with EIO=): ` +
      'open the proxy\'s URL in the browser, let the page connect and talk, then stop the proxy', '--proxy')
  }
  if (model.framesMissing.length > 0) {
    const urls = model.framesMissing.map((e) => e.url.href).slice(0, 3).join(', ')
    const count = `${model.framesMissing.length} WebSocket connection(s) (${urls})`
    throw badRecording(`${name} has ${count} but not their frames: its writer (${model.creator}) leaves them out ` +
      '(Firefox does). Export the HAR from Chrome\'s Network panel, or have the page use polling only while recording')
  }
  if (model.unknown.length > 0) {
    const u = model.unknown[0]
    throw badRecording(`${name}: the connection to ${u.url} carries frames of an unknown protocol (${u.why}; first: ${JSON.stringify(u.frame)}): ` +
      'ioswarm record reads Engine.IO v3/v4 with Socket.IO packets (JSON parser; msgpack is not read)')
  }
  if (model.plain.length > 0) {
    const socket = model.plain[0]
    const first = socket.frames.find((f) => typeof f.data === 'string')
    throw badRecording(`${name} has ${model.plain.length} WebSocket connection(s) but none speaks Engine.IO (no EIO= in ${socket.url.href}); ` +
      `${first ? `its first frame: ${JSON.stringify(String(first.data).slice(0, 80))}; ` : ''}` +
      'give --out NAME.json to write its replay as --protocol websocket options (a --config file)')
  }
  throw badRecording(`${name} has no WebSocket frames (no _webSocketMessages) and no Engine.IO polling requests (URLs with EIO=): ` +
    'open the Network panel before the page connects, let the page talk, then export the HAR with content')
}

/**
 * Writes a file whole: a temporary file beside it, renamed into place.
 * @param {string} path
 * @param {string} text
 */
async function writeWhole (path, text) {
  const temp = join(dirname(path), `.${basename(path)}.${randomBytes(4).toString('hex')}.tmp`)
  try {
    await writeFile(temp, text, { mode: 0o600 })
    await rename(temp, path)
  } catch (error) {
    await rm(temp, { force: true })
    throw invalidOption('--out', `cannot write ${path}: ${/** @type {Error} */ (error).message}`)
  }
}
