/**
 * Finds import circles among the project's modules: groups of files that import each other,
 * directly or round a loop (a module of such a group can run before the ones it imports have
 * finished loading). Static `import … from` / `export … from` of relative paths count;
 * `import()` does not (it runs later, when everything has loaded). Tests are left out: nothing
 * imports them. The lint rules of eslint.config.js keep the folders' boundaries; this keeps
 * the modules' order. A test runs it (test/scripts/import-circles.test.js).
 *
 *   node scripts/import-circles.js [dir]   prints each circle, exits 1 if there is one
 */
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

const SKIP = new Set(['node_modules', 'test', 'coverage', 'runs', 'results-out', 'types'])
// `import x from '…'`, `import { a,\n b } from '…'`, `export * from '…'`, `import '…'`: at the start of a line.
const STATIC_IMPORT = /^[ \t]*(?:import|export)\b[^'"`;]*?\bfrom\s*['"]([^'"]+)['"]|^[ \t]*import\s*['"]([^'"]+)['"]/gm

/**
 * The .js files under dir, as paths relative to it (posix separators).
 * @param {string} dir
 * @returns {string[]}
 */
export function sourceFiles (dir) {
  /** @type {string[]} */
  const out = []
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith('.') || SKIP.has(entry.name)) continue
    if (entry.isDirectory()) out.push(...sourceFiles(path.join(dir, entry.name)).map((f) => `${entry.name}/${f}`))
    else if (entry.name.endsWith('.js')) out.push(entry.name)
  }
  return out.sort()
}

/**
 * Each file's static relative imports that are files of the set.
 * @param {string} dir
 * @param {string[]} files relative to dir
 * @returns {Map<string, string[]>}
 */
export function importGraph (dir, files) {
  const known = new Set(files)
  /** @type {Map<string, string[]>} */
  const graph = new Map()
  for (const file of files) {
    const text = readFileSync(path.join(dir, file), 'utf8')
    const deps = []
    for (const m of text.matchAll(STATIC_IMPORT)) {
      const spec = m[1] ?? m[2]
      if (!spec.startsWith('.')) continue
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec))
      if (known.has(target)) deps.push(target)
    }
    graph.set(file, deps)
  }
  return graph
}

/**
 * The import circles: strongly connected groups of more than one file, or a file importing
 * itself (Tarjan's algorithm).
 * @param {Map<string, string[]>} graph
 * @returns {string[][]} each circle's files, sorted
 */
export function findCircles (graph) {
  let next = 0
  /** @type {Map<string, number>} */
  const index = new Map()
  /** @type {Map<string, number>} */
  const low = new Map()
  /** @type {string[]} */
  const stack = []
  const onStack = new Set()
  /** @type {string[][]} */
  const circles = []
  /** @param {string} v */
  const visit = (v) => {
    index.set(v, next)
    low.set(v, next++)
    stack.push(v)
    onStack.add(v)
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w)
        low.set(v, Math.min(/** @type {number} */ (low.get(v)), /** @type {number} */ (low.get(w))))
      } else if (onStack.has(w)) {
        low.set(v, Math.min(/** @type {number} */ (low.get(v)), /** @type {number} */ (index.get(w))))
      }
    }
    if (low.get(v) !== index.get(v)) return
    /** @type {string[]} */
    const group = []
    let w
    do {
      w = /** @type {string} */ (stack.pop())
      onStack.delete(w)
      group.push(w)
    } while (w !== v)
    if (group.length > 1 || graph.get(v)?.includes(v)) circles.push(group.sort())
  }
  for (const v of graph.keys()) if (!index.has(v)) visit(v)
  return circles
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const dir = path.resolve(process.argv[2] ?? '.')
  const circles = findCircles(importGraph(dir, sourceFiles(dir)))
  for (const circle of circles) console.log(`import circle: ${circle.join(' ↔ ')}`)
  console.log(`${circles.length} import circle${circles.length === 1 ? '' : 's'}`)
  process.exitCode = circles.length === 0 ? 0 : 1
}
