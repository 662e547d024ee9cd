/**
 * The event stream parser against the WHATWG EventSource rules: line ends, the BOM, comments,
 * fields with and without a value, data lines joined, ids kept across events, retry, and
 * chunks cut anywhere (inside a line, a CRLF, a UTF-8 character).
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { EventStreamParser } from '../../../../simulator/engines/sse/parse.js'

/**
 * Reads `chunks` and returns what the parser told.
 * @param {(string | Buffer)[]} chunks
 */
function read (chunks) {
  /** @type {(string | number)[][]} */
  const told = []
  const parser = new EventStreamParser({
    event: (type, data, id) => told.push([type, data, id]),
    retry: (ms) => told.push(['retry', ms])
  })
  for (const chunk of chunks) parser.write(typeof chunk === 'string' ? Buffer.from(chunk) : chunk)
  return { told, parser }
}

test('data lines are joined with LF; the type defaults to message; event: names it; one space after the colon is dropped', () => {
  const { told } = read(['data: one\ndata:two\ndata:  three\n\nevent: score\ndata: {"id":1}\n\n'])
  assert.deepEqual(told, [['message', 'one\ntwo\n three', ''], ['score', '{"id":1}', '']])
})

test('CRLF, LF and CR all end lines, mixed in one stream', () => {
  const { told } = read(['data: a\r\n\r\ndata: b\n\ndata: c\r\rdata: d\r\ndata: e\n\r\n'])
  assert.deepEqual(told, [['message', 'a', ''], ['message', 'b', ''], ['message', 'c', ''], ['message', 'd\ne', '']])
})

test('a CRLF cut between two chunks is one line end, not two (no empty event line in between)', () => {
  const { told } = read(['data: a\r', '\ndata: b\r', '\n\r', '\n'])
  assert.deepEqual(told, [['message', 'a\nb', '']])
})

test('a lone CR at a chunk\'s end followed by more text is a line end', () => {
  const { told } = read(['data: a\r', 'data: b\r\r'])
  assert.deepEqual(told, [['message', 'a\nb', '']])
})

test('chunks cut anywhere give the same events, a UTF-8 character split between chunks included', () => {
  const stream = Buffer.from('\uFEFFid: 7\nevent: é\ndata: ünïcødé 😀\n\n: comment\ndata: x\n\n')
  const whole = read([stream]).told
  assert.deepEqual(whole, [['é', 'ünïcødé 😀', '7'], ['message', 'x', '7']])
  for (let cut = 1; cut < stream.length; cut++) {
    assert.deepEqual(read([stream.subarray(0, cut), stream.subarray(cut)]).told, whole, `cut at byte ${cut}`)
  }
  const bytes = [...stream].map((b) => Buffer.from([b]))
  assert.deepEqual(read(bytes).told, whole, 'one byte at a time')
})

test('one leading BOM is dropped, a second one is text', () => {
  assert.deepEqual(read(['\uFEFFdata: a\n\n']).told, [['message', 'a', '']])
  // After the first BOM, "\uFEFFdata" is a field name that is not data: ignored.
  assert.deepEqual(read(['\uFEFF\uFEFFdata: a\n\n']).told, [])
})

test('comments are ignored, and a comment line does not dispatch', () => {
  assert.deepEqual(read([': keep-alive\n:\ndata: a\n: between\ndata: b\n\n']).told, [['message', 'a\nb', '']])
})

test('a field without a colon has an empty value: a bare "data" is an empty data line', () => {
  assert.deepEqual(read(['data\n\ndata\ndata\n\n']).told, [['message', '', ''], ['message', '\n', '']])
})

test('an event without data is not dispatched, and its type does not leak into the next', () => {
  assert.deepEqual(read(['event: ping\n\ndata: a\n\n']).told, [['message', 'a', '']])
})

test('id: sets the last event id, kept for later events; an empty id clears it; an id with NUL is ignored', () => {
  const { told } = read(['id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\nid: 4\n\nid: x\0y\ndata: d\n\n'])
  assert.deepEqual(told, [['message', 'a', '1'], ['message', 'b', '1'], ['message', 'c', ''], ['message', 'd', '4']])
})

test('retry: only ASCII digits set the delay; anything else is ignored', () => {
  const { told } = read(['retry: 1500\nretry: 2s\nretry: -1\nretry: 1.5\nretry:\nretry: 0\ndata: a\n\n'])
  assert.deepEqual(told, [['retry', 1500], ['retry', 0], ['message', 'a', '']])
})

test('unknown fields are ignored; a field name is case-sensitive; no space before the colon is trimmed', () => {
  assert.deepEqual(read(['foo: bar\nData: x\ndata : y\ndata: z\n\n']).told, [['message', 'z', '']])
})

test('an event the stream ends in the middle of is dropped by reset(); the last event id stays for Last-Event-ID', () => {
  const { told, parser } = read(['id: 9\ndata: a\n\nid: 10\ndata: half'])
  assert.deepEqual(told, [['message', 'a', '9']])
  assert.equal(parser.lastEventId, '10', 'the id field was read before the stream broke')
  parser.reset()
  parser.write(Buffer.from('\uFEFFdata: b\n\n'))
  assert.deepEqual(told, [['message', 'a', '9'], ['message', 'b', '10']], 'the half event is gone; the new stream may start with a BOM')
})

test('holding() counts the data of the event being read and the unfinished line', () => {
  const { parser } = read(['data: 12345\ndata: 678'])
  assert.equal(parser.holding(), 5 + 'data: 678'.length)
  parser.write(Buffer.from('\n\n'))
  assert.equal(parser.holding(), 0)
})
