/**
 * Reading what module-log.js recorded in a child process: the packages it loaded and its own
 * files (paths relative to the checkout), and the environment that turns the log on.
 */
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const HOOK = fileURLToPath(new URL('./module-log.js', import.meta.url))
const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/**
 * Environment variables for a child that logs its modules to `log`.
 * @param {string} log
 */
export function moduleLogEnv (log) {
  return { NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --import=${HOOK}`, IOSWARM_TEST_MODULE_LOG: log }
}

/**
 * @param {string} log the file the child wrote
 * @returns {{ packages: Set<string>, files: string[] }}
 */
export function readModuleLog (log) {
  const urls = readFileSync(log, 'utf8').split('\n').filter(Boolean)
  const packages = new Set(urls.filter((u) => u.includes('/node_modules/')).map((u) => {
    const [scopeOrName, name] = u.slice(u.lastIndexOf('/node_modules/') + '/node_modules/'.length).split('/')
    return scopeOrName.startsWith('@') ? `${scopeOrName}/${name}` : scopeOrName
  }))
  const files = urls.filter((u) => u.startsWith('file:') && !u.includes('/node_modules/')).map((u) => path.relative(ROOT, fileURLToPath(u)))
  return { packages, files }
}
