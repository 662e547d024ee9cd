/**
 * Test helper, loaded into a child process with `--import` (NODE_OPTIONS): writes the URL of
 * every module the process loaded to the file named by IOSWARM_TEST_MODULE_LOG, one per
 * line. A test reads the file to know which packages a real ioswarm process loaded (issue 26:
 * a light process). ES modules are logged by a resolve hook as they load; CommonJS modules
 * loaded with require() (which Node 20's hooks do not see) from the require cache at exit.
 */
import { appendFileSync } from 'node:fs'
import { createRequire, register } from 'node:module'
import { pathToFileURL } from 'node:url'

register('./module-log-hooks.js', import.meta.url)

const LOG = process.env.IOSWARM_TEST_MODULE_LOG
const cache = createRequire(import.meta.url).cache
process.on('exit', () => {
  if (LOG) appendFileSync(LOG, Object.keys(cache).map((file) => `${pathToFileURL(file).href}\n`).join(''))
})
