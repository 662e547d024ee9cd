/**
 * What every long-running command's CLI shares: an AbortSignal tied to SIGINT/SIGTERM (the
 * first signal stops gracefully and flushes, a second one exits at once) and a progress
 * writer for stderr (one refreshed line on a TTY, a line every few seconds otherwise).
 */
import { writeFileSync } from 'node:fs'
import { access, mkdir } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { EXIT, invalidOption } from './errors.js'

/**
 * @param {string} name shown in the "stopping" message
 * @param {import('./steering.js').Steering} [steering] the command's steering: the first signal is its stop action (by
 *   'signal'), one path with the dashboard's stop, and the signal returned is its signal
 * @returns {{ signal: AbortSignal, dispose(): void }}
 */
export function stopOnSignals (name, steering) {
  const controller = new AbortController()
  let signals = 0
  const onSignal = (/** @type {NodeJS.Signals} */ sig) => {
    signals++
    if (signals > 1) {
      process.stderr.write(`\n${name}: second ${sig}, exiting without flushing\n`)
      process.exit(EXIT.INTERRUPTED)
    }
    process.stderr.write(`\n${name}: ${sig} received, stopping and flushing results (send it again to exit at once)\n`)
    if (steering) steering.act('stop', {}, 'signal')
    else controller.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return {
    signal: steering?.signal ?? controller.signal,
    dispose () {
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
    }
  }
}

/**
 * A progress writer: on a TTY it rewrites one line; otherwise it prints at most one line
 * every `everyMs`.
 * @param {{ quiet?: boolean, everyMs?: number, stream?: NodeJS.WriteStream }} [options]
 */
export function progressWriter ({ quiet = false, everyMs = 5000, stream = process.stderr } = {}) {
  let lastAt = 0
  let onLine = false
  return {
    /** @param {string} line */
    update (line) {
      if (quiet) return
      if (stream.isTTY) {
        const width = stream.columns || 120
        stream.write(`\r${line.slice(0, width - 1).padEnd(Math.min(width - 1, line.length + 10))}`)
        onLine = true
        return
      }
      const now = Date.now()
      if (now - lastAt < everyMs) return
      lastAt = now
      stream.write(`${line}\n`)
    },
    /** Ends the refreshed line so the next output starts clean. */
    done () {
      if (onLine) stream.write('\n')
      onLine = false
    }
  }
}

/**
 * Prints a command's JSON result on stdout. When stdout is gone (the reader of a pipe died:
 * EPIPE), the result is not lost: it is written to a file in the temp directory, named on
 * stderr. Resolves once the text is written or saved.
 * @param {string} name the command, for the message and the file name
 * @param {unknown} result
 * @param {NodeJS.WritableStream} [stream] stdout
 * @returns {Promise<void>}
 */
export function printJsonResult (name, result, stream = process.stdout) {
  const text = `${JSON.stringify(result)}\n`
  return new Promise((resolve) => {
    let done = false
    const finish = (/** @type {Error | null | undefined} */ error) => {
      if (done) return
      done = true
      if (error) {
        const file = path.join(os.tmpdir(), `${name.replace(/\W+/g, '-')}-${process.pid}-${Date.now()}.json`)
        writeFileSync(file, text)
        process.stderr.write(`${name}: stdout closed (${/** @type {NodeJS.ErrnoException} */ (error).code ?? error.message}): the result is saved in ${file}\n`)
      }
      resolve()
    }
    // Both the write's callback and an 'error' event report a failure: the listener stays, so
    // the event that comes second is not an unhandled one.
    stream.on('error', finish)
    stream.write(text, finish)
  })
}

/**
 * Makes a command's results folder (--out) before anything starts: one that cannot be written
 * stops the command there (exit 2). `run` and `capacity` remove it again if they fail before
 * writing in it (Redis unreachable, say).
 * @param {string} out
 * @returns {Promise<string | undefined>} the first folder mkdir made; undefined when it was there already
 */
export async function makeOutDir (out) {
  const cannot = (/** @type {unknown} */ error) => invalidOption('--out', `cannot be written (${/** @type {Error} */ (error).message}); nothing was started`)
  const made = await mkdir(out, { recursive: true }).catch((error) => { throw cannot(error) })
  await access(out, 2).catch((error) => { throw cannot(error) })
  return made
}
