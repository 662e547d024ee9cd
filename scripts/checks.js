/**
 * `npm test`'s static checks side by side: each named npm script (lint: eslint and the import
 * circles; typecheck: tsc) is one single-threaded process that takes a core for tens of
 * seconds, so on two cores both end in about the time of the slower one instead of the sum.
 * Each script's output is held and printed whole when it ends; the exit code is 1 when any
 * failed, and the test files only start after (package.json "test").
 *
 *   node scripts/checks.js lint typecheck
 */
import { spawn } from 'node:child_process'

const names = process.argv.slice(2)
if (names.length === 0) {
  process.stderr.write('usage: node scripts/checks.js SCRIPT… (npm scripts to run side by side)\n')
  process.exit(2)
}
// Under npm, the npm that runs us; else the one on PATH.
const npm = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm']

/**
 * Runs `npm run NAME`, its output held.
 * @param {string} name
 * @returns {Promise<{ name: string, ok: boolean }>}
 */
function runScript (name) {
  const started = performance.now()
  const child = spawn(npm[0], [...npm.slice(1), 'run', name], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.setEncoding('utf8').on('data', (d) => { out += d })
  child.stderr.setEncoding('utf8').on('data', (d) => { out += d })
  return new Promise((resolve) => {
    child.on('error', (error) => { out += `${error.message}\n` })
    child.on('close', (code, signal) => {
      const ok = code === 0 && signal === null
      process.stdout.write(`${out}# ${name}: ${ok ? 'ok' : `FAILED (${code ?? signal})`}, ${((performance.now() - started) / 1000).toFixed(1)} s\n`)
      resolve({ name, ok })
    })
  })
}

const results = await Promise.all(names.map(runScript))
const failed = results.filter((r) => !r.ok).map((r) => r.name)
if (failed.length > 0) process.stdout.write(`# checks FAILED: ${failed.join(', ')}\n`)
process.exitCode = failed.length > 0 ? 1 : 0
