/**
 * Test helper, loaded into a child process with `--import` (NODE_OPTIONS): writes the URL of
 * every module the process loads to the file named by IOSWARM_TEST_MODULE_LOG, one per line,
 * as it loads, so a test can read what a real ioswarm process had loaded at a given moment
 * (a process loads only what it uses). ES modules are logged by a resolve hook; CommonJS modules
 * loaded with require() (which Node 20's hooks do not see) by a wrapper of Module._load that
 * logs each file new to the require cache.
 */
import { appendFileSync } from 'node:fs'
import Module, { register } from 'node:module'
import { pathToFileURL } from 'node:url'

register('./module-log-hooks.js', import.meta.url)

const LOG = process.env.IOSWARM_TEST_MODULE_LOG
/** @type {{ _cache: Record<string, unknown>, _load: (...args: unknown[]) => unknown }} */
const loader = /** @type {any} */ (Module)
const seen = new Set(Object.keys(loader._cache))
const load = loader._load
loader._load = function (...args) {
  const loaded = load.apply(this, args)
  const fresh = Object.keys(loader._cache).filter((file) => !seen.has(file))
  for (const file of fresh) seen.add(file)
  if (LOG && fresh.length > 0) appendFileSync(LOG, fresh.map((file) => `${pathToFileURL(file).href}\n`).join(''))
  return loaded
}
