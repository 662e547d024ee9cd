/**
 * A first-in first-out spool of JSON values in a file: what the reporter writes to disk
 * instead of memory when the collector has been away so long that its queue passed a bound.
 * Appends are synchronous so the order on disk is the order of calls; `take` reads the
 * oldest values back; the file is deleted as soon as everything written has been taken.
 */
import { randomUUID } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'

const READ_CHUNK_BYTES = 64 * 1024

/**
 * Creates an empty spool; nothing touches the disk until the first append.
 * @param {{ dir?: string, name?: string }} [options] dir defaults to os.tmpdir()
 */
export function createSpool ({ dir = os.tmpdir(), name = `ioswarm-spool-${process.pid}-${randomUUID()}.jsonl` } = {}) {
  const file = path.join(dir, name)
  let pending = 0
  let readOffset = 0
  let writtenBytes = 0
  /** @type {number | null} */
  let fd = null

  function reset () {
    if (fd !== null) fs.closeSync(fd)
    fd = null
    fs.rmSync(file, { force: true })
    pending = 0
    readOffset = 0
    writtenBytes = 0
  }

  return {
    file,
    /** Values appended and not yet taken. */
    get size () { return pending },
    /** Bytes written to the file since it was last emptied. */
    get bytes () { return writtenBytes },

    /** @param {unknown} value must survive JSON.stringify */
    append (value) {
      if (fd === null) fd = fs.openSync(file, 'a+')
      const line = `${JSON.stringify(value)}\n`
      fs.writeSync(fd, line)
      writtenBytes += Buffer.byteLength(line)
      pending++
    },

    /**
     * Removes and returns up to `maxValues` of the oldest values; deletes the file once empty.
     * @param {number} maxValues
     * @returns {unknown[]}
     */
    take (maxValues) {
      if (pending === 0 || fd === null) return []
      /** @type {unknown[]} */
      const values = []
      let buffered = Buffer.alloc(0)
      let position = readOffset
      // Bounded: every pass reads forward and the file ends at writtenBytes.
      while (values.length < maxValues && position < writtenBytes) {
        const chunk = Buffer.alloc(READ_CHUNK_BYTES)
        const read = fs.readSync(fd, chunk, 0, chunk.length, position)
        if (read === 0) break
        position += read
        buffered = Buffer.concat([buffered, chunk.subarray(0, read)])
        let newline = buffered.indexOf(10)
        while (newline !== -1 && values.length < maxValues) {
          values.push(JSON.parse(buffered.subarray(0, newline).toString('utf8')))
          readOffset += newline + 1
          buffered = buffered.subarray(newline + 1)
          newline = buffered.indexOf(10)
        }
      }
      pending -= values.length
      if (pending === 0) reset()
      return values
    },

    /** Deletes the file and forgets what it held. */
    close () { reset() }
  }
}
