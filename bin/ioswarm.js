#!/usr/bin/env node
// `ioswarm --version` and `ioswarm --help` alone need no parser: they print what yargs prints
// without loading yargs, whose help renderer builds Intl.Segmenters at load (a process
// loads only what it uses); the help only in yargs' English and at a width bin/top-help.js is held to yargs at.
// Every other command line goes through yargs.
const args = process.argv.slice(2)
const only = args.length === 1 ? args[0] : undefined
if (only === '--version') {
  const { VERSION } = await import('../lib/version.js')
  print(`${VERSION}\n`)
} else if (!((only === '--help' || only === '-h') && await printTopHelp())) {
  const [{ hideBin }, { main }] = await Promise.all([import('yargs/helpers'), import('./cli.js')])
  await main(hideBin(process.argv))
}

/** Prints the top-level help without yargs, if this terminal and locale allow; whether it did. */
async function printTopHelp () {
  const { FAST_MIN_WIDTH, englishHelp, helpWidth, topHelp } = await import('./top-help.js')
  const width = helpWidth(process.stdout.columns)
  if (width < FAST_MIN_WIDTH || !englishHelp(process.env)) return false
  print(`${topHelp(width)}\n`)
  return true
}

/**
 * Writes to stdout as yargs' path ends: a reader that is gone (`ioswarm --help | true`) is no
 * error there (yargs exits before the EPIPE arrives), so it is none here.
 * @param {string} text
 */
function print (text) {
  process.stdout.on('error', (error) => {
    if (/** @type {NodeJS.ErrnoException} */ (error).code !== 'EPIPE') throw error
  })
  process.stdout.write(text)
}
