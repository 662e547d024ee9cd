/**
 * The event stream format of Server-Sent Events, read as the WHATWG HTML standard's
 * EventSource reads it (§9.2.6, "Interpreting an event stream"), so a server's stream means
 * to the swarm what it means to a browser: UTF-8 with one leading BOM dropped; lines end with
 * CRLF, LF or CR (a CR at the end of one chunk and the LF that starts the next are one line
 * end); a line that starts with a colon is a comment; `field: value` (one space after the
 * colon dropped) or a bare `field` with an empty value; `data` lines joined with LF; `event`
 * names the event (default "message"); `id` sets the last event id unless it holds a NUL
 * and stays set for the events after; `retry` (ASCII digits only) sets the reconnection delay;
 * other fields are ignored; an empty line dispatches the event, unless it has no data; an
 * event the stream ends in the middle of is dropped.
 */
import { StringDecoder } from 'node:string_decoder'

/** The event type when a stream names none (EventSource's default). */
export const SSE_DEFAULT_EVENT = 'message'

const BOM = '\uFEFF'
const LF = 10
const CR = 13

/**
 * @typedef {object} SseEvents what a stream tells its reader
 * @property {(type: string, data: string, lastEventId: string) => void} event an event was dispatched
 * @property {(delayMs: number) => void} retry a `retry` field set the reconnection delay
 */

export class EventStreamParser {
  /** @param {SseEvents} on */
  constructor (on) {
    this.on = on
    this.decoder = new StringDecoder('utf8')
    /** The start of a line whose end has not come yet. */
    this.pending = ''
    /** Nothing read yet: a BOM here is dropped. */
    this.start = true
    /** The last chunk ended in a CR: an LF that starts the next chunk ends no other line. */
    this.afterCr = false
    /** @type {string[]} the data lines of the event being read */
    this.data = []
    this.type = ''
    /** Characters of the data lines held for the event being read (the pool bounds it, --max-payload). */
    this.held = 0
    /** The last event id buffer: kept across events and across reconnects (Last-Event-ID). */
    this.lastEventId = ''
  }

  /**
   * Reads a chunk of the stream, dispatching the events it completes.
   * @param {Buffer} chunk
   */
  write (chunk) {
    let text = this.decoder.write(chunk)
    if (text.length === 0) return
    if (this.start) {
      this.start = false
      if (text.startsWith(BOM)) text = text.slice(1)
    }
    let at = 0
    if (this.afterCr) {
      this.afterCr = false
      if (text.charCodeAt(0) === LF) at = 1
    }
    const n = text.length
    let lineStart = at
    for (let k = at; k < n; k++) {
      const c = text.charCodeAt(k)
      if (c !== LF && c !== CR) continue
      const line = text.slice(lineStart, k)
      if (this.pending === '') this.line(line)
      else {
        this.line(this.pending + line)
        this.pending = ''
      }
      if (c === CR) {
        if (k + 1 === n) this.afterCr = true
        else if (text.charCodeAt(k + 1) === LF) k++
      }
      lineStart = k + 1
    }
    if (lineStart < n) this.pending += text.slice(lineStart)
  }

  /**
   * The stream ended (or the connection will be a new one): a half-read event is dropped, the
   * last event id is kept (EventSource sends it as Last-Event-ID when it reconnects).
   */
  reset () {
    this.decoder = new StringDecoder('utf8')
    this.pending = ''
    this.start = true
    this.afterCr = false
    this.data = []
    this.type = ''
    this.held = 0
  }

  /** @returns {number} what the event being read holds so far, in characters (its data and the unfinished line) */
  holding () {
    return this.held + this.pending.length
  }

  /** @param {string} line a whole line, without its end */
  line (line) {
    if (line.length === 0) {
      this.dispatch()
      return
    }
    const colon = line.indexOf(':')
    if (colon === 0) return
    let field = line
    let value = ''
    if (colon > 0) {
      field = line.slice(0, colon)
      value = line.charCodeAt(colon + 1) === 32 ? line.slice(colon + 2) : line.slice(colon + 1)
    }
    switch (field) {
      case 'data':
        this.data.push(value)
        this.held += value.length
        break
      case 'event':
        this.type = value
        break
      case 'id':
        if (!value.includes('\0')) this.lastEventId = value
        break
      case 'retry':
        if (/^[0-9]+$/.test(value)) this.on.retry(Number(value))
        break
    }
  }

  dispatch () {
    const data = this.data
    const type = this.type
    this.data = []
    this.type = ''
    this.held = 0
    if (data.length === 0) return
    this.on.event(type === '' ? SSE_DEFAULT_EVENT : type, data.length === 1 ? data[0] : data.join('\n'), this.lastEventId)
  }
}
