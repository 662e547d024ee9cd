/**
 * Property-based fuzzing of the event stream parser (simulator/engines/sse/parse.js), bounded for
 * CI: random streams of fields, comments, line ends and text (non-ASCII included), cut into
 * random chunks (and cut after every CR), give the events that the standard's algorithm, written
 * here plainly over the whole stream, gives.
 */
import assert from 'node:assert/strict'
import { test } from 'node:test'
import fc from 'fast-check'
import { EventStreamParser } from '../../simulator/engines/sse/parse.js'

const RUNS = 400
const TIME_LIMIT_MS = 2000

/**
 * The WHATWG algorithm over the whole stream at once: the oracle.
 * @param {string} text the decoded stream
 */
function oracle (text) {
  /** @type {(string | number)[][]} */
  const told = []
  if (text.startsWith('\uFEFF')) text = text.slice(1)
  const lines = text.split(/\r\n|\r|\n/)
  lines.pop() // the last piece has no line end: it is not a line yet
  let data = ''
  let type = ''
  let id = ''
  for (const line of lines) {
    if (line === '') {
      if (data !== '') told.push([type || 'message', data.slice(0, -1), id])
      data = ''
      type = ''
      continue
    }
    if (line.startsWith(':')) continue
    const colon = line.indexOf(':')
    const field = colon === -1 ? line : line.slice(0, colon)
    let value = colon === -1 ? '' : line.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') data += `${value}\n`
    else if (field === 'event') type = value
    else if (field === 'id' && !value.includes('\0')) id = value
    else if (field === 'retry' && /^[0-9]+$/.test(value)) told.push(['retry', Number(value)])
  }
  return told
}

/**
 * @param {Buffer[]} chunks
 */
function parse (chunks) {
  /** @type {(string | number)[][]} */
  const told = []
  const parser = new EventStreamParser({ event: (type, data, id) => told.push([type, data, id]), retry: (ms) => told.push(['retry', ms]) })
  for (const chunk of chunks) parser.write(chunk)
  return told
}

const END = fc.constantFrom('\n', '\r', '\r\n')
const TEXT = fc.string({ unit: fc.constantFrom('a', 'b', ' ', ':', 'é', '😀', '\0', '1', '7', '{', '"'), maxLength: 12 })
const LINE = fc.oneof(
  fc.tuple(fc.constantFrom('data', 'event', 'id', 'retry', 'Data', 'other', ''), fc.constantFrom(':', ': ', ':  ', ''), TEXT)
    .map(([f, c, v]) => `${f}${c}${v}`),
  fc.stringMatching(/^[0-9]{1,5}$/).map((n) => `retry: ${n}`),
  TEXT.map((v) => `:${v}`),
  fc.constant('')
)
const STREAM = fc.tuple(fc.boolean(), fc.array(fc.tuple(LINE, END), { maxLength: 30 }), TEXT)
  .map(([bom, lines, tail]) => `${bom ? '\uFEFF' : ''}${lines.map(([l, e]) => l + e).join('')}${tail}`)

test('random streams cut into random chunks: the events of the standard\'s algorithm over the whole stream', () => {
  const property = fc.property(STREAM, fc.array(fc.nat(), { maxLength: 8 }), (text, cuts) => {
    const bytes = Buffer.from(text)
    const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b)
    const chunks = [0, ...at].map((start, k, all) => bytes.subarray(start, all[k + 1] ?? bytes.length))
    assert.deepEqual(parse(chunks), oracle(text))
  })
  const details = fc.check(property, { numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS })
  assert.equal(details.failed, false, fc.defaultReportMessage(details))
  assert.ok(details.numRuns > 0)
})

test('random streams cut right after every CR: a CRLF split between reads is one line end', () => {
  const property = fc.property(STREAM, (text) => {
    const bytes = Buffer.from(text)
    /** @type {Buffer[]} */
    const chunks = []
    let start = 0
    for (let k = 0; k < bytes.length; k++) {
      if (bytes[k] !== 13) continue
      chunks.push(bytes.subarray(start, k + 1))
      start = k + 1
    }
    chunks.push(bytes.subarray(start))
    assert.deepEqual(parse(chunks), oracle(text))
  })
  const details = fc.check(property, { numRuns: RUNS, interruptAfterTimeLimit: TIME_LIMIT_MS })
  assert.equal(details.failed, false, fc.defaultReportMessage(details))
  assert.ok(details.numRuns > 0)
})
