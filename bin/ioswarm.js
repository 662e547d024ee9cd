#!/usr/bin/env node
// `ioswarm --version` alone needs no parser: it prints what yargs prints (the version and a
// newline) without loading yargs, whose help renderer builds Intl.Segmenters at load (issue 26:
// a light process). Every other command line goes through yargs.
const args = process.argv.slice(2)
if (args.length === 1 && args[0] === '--version') {
  const { VERSION } = await import('../lib/version.js')
  process.stdout.write(`${VERSION}\n`)
} else {
  const [{ hideBin }, { main }] = await Promise.all([import('yargs/helpers'), import('./cli.js')])
  await main(hideBin(process.argv))
}
