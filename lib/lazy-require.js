/**
 * A dependency loaded on its first use, synchronously, for code paths that need one only
 * with some option (a YAML --config, a CSV --feeder, --parser msgpack) and cannot await:
 * every other process skips its load time and memory (a process loads only what it uses). Where the
 * caller can await, `await import()` at the point of need does the same.
 */
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

/**
 * @param {string} name a package (or package subpath) that can be require()d
 * @returns {() => any} returns the module; the caller types it
 */
export function onFirstUse (name) {
  /** @type {unknown} */
  let loaded
  return () => (loaded ??= require(name))
}
