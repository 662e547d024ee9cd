/**
 * The resolve hook of module-log.js (runs on the loader thread). Synchronous appends: the
 * process may exit at any moment, and each line must be in the file by then.
 */
import { appendFileSync } from 'node:fs'

const LOG = process.env.IOSWARM_TEST_MODULE_LOG

/**
 * @param {string} specifier
 * @param {object} context
 * @param {(specifier: string, context: object) => Promise<{ url: string }>} next
 */
export async function resolve (specifier, context, next) {
  const resolved = await next(specifier, context)
  if (LOG) appendFileSync(LOG, `${resolved.url}\n`)
  return resolved
}
