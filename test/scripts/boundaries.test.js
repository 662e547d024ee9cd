/**
 * The boundaries of ARCHITECTURE.md are kept by checks that fail: the lint rules of
 * eslint.config.js (run on code placed at a path inside the project, as `npm run lint` sees
 * it) and the import-circle finder (scripts/import-circles.js) on the project and on a circle.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ESLint } from 'eslint'
import { findCircles, importGraph, sourceFiles } from '../../scripts/import-circles.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const BOUNDARY_RULES = new Set(['no-restricted-imports', 'no-restricted-syntax'])

/**
 * The boundary errors ESLint reports for code at a path of the project.
 * @param {ESLint} eslint
 * @param {string} filePath relative to the project
 * @param {string} code
 */
async function boundaryErrors (eslint, filePath, code) {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) })
  return result.messages.filter((m) => m.ruleId !== null && BOUNDARY_RULES.has(m.ruleId)).map((m) => m.message)
}

test('lint fails an import of another folder\'s internals, of anything above lib/, and of another engine\'s files; public entries pass', async () => {
  const eslint = new ESLint({ cwd: ROOT })
  /** @type {[string, string, boolean][]} file, import, allowed */
  const cases = [
    ['runner/x.js', "import { METRICS } from '../results/thresholds.js'", false],
    ['runner/x.js', "import { METRICS } from '../results/index.js'", true],
    ['runner/capacity/x.js', "export { KIB_PER_CLIENT } from '../../simulator/inspection/preflight.js'", false],
    ['runner/capacity/x.js', "const { KIB_PER_CLIENT } = await import('../../simulator/inspection/preflight.js')", false],
    ['runner/capacity/x.js', "const { runSwarm } = await import('../../simulator/index.js')", true],
    ['server/x.js', "import { createCollector } from '../results/collector/index.js'", true],
    ['infra/x.js', "import { main } from '../bin/cli.js'", false],
    ['bin/x.js', "import { serveCommand } from '../server/cli.js'", true],
    ['bin/x.js', "import { probeCommand } from '../server/probe/cli.js'", true],
    ['bin/x.js', "import { normalizeServeOptions } from '../server/options.js'", false],
    ['simulator/x.js', "import { normalizeRunOptions } from '../runner'", false],
    ['lib/x.js', "import { runSwarm } from '../simulator/index.js'", false],
    ['lib/x.js', "import { invalidOption } from './errors.js'", true],
    ['lib/cli-options/x.js', "import { invalidOption } from '../errors.js'", true],
    ['lib/cli-options/x.js', "import { runTest } from '../../runner/index.js'", false],
    ['simulator/engines/websocket/x.js', "import { FrameCache } from '../../wire/frame-cache.js'", true],
    ['simulator/engines/websocket/x.js', "import { STATE } from '../lean/client.js'", false],
    ['simulator/engines/sio.js', "import { leanEngine } from './lean.js'", false],
    ['simulator/engines/lean/x.js', "import { PlainPool } from '../websocket/pool.js'", false],
    ['simulator/engines/lean/x.js', "import { openWebSocket } from './websocket.js'", true],
    ['simulator/wire/x.js', "import { decodeEvent } from '../engines/lean/codec.js'", false]
  ]
  for (const [file, code, allowed] of cases) {
    const errors = await boundaryErrors(eslint, file, `${code}\n`)
    assert.equal(errors.length === 0, allowed, `${file}: ${code} → ${errors.join('; ') || 'no error'}`)
  }
})

test('the project has no import circle, and the finder reports one', async (t) => {
  assert.deepEqual(findCircles(importGraph(ROOT, sourceFiles(ROOT))), [])

  const dir = await mkdtemp(path.join(os.tmpdir(), 'ioswarm-circles-'))
  t.after(() => rm(dir, { recursive: true, force: true }))
  await mkdir(path.join(dir, 'a'))
  await writeFile(path.join(dir, 'a', 'one.js'), "import { two } from './two.js'\nexport const one = () => two\n")
  await writeFile(path.join(dir, 'a', 'two.js'), "import {\n  three\n} from '../three.js'\nexport const two = three\n")
  await writeFile(path.join(dir, 'three.js'), "export { one as three } from './a/one.js'\nimport './four.js'\n")
  await writeFile(path.join(dir, 'four.js'), "// import { one } from './a/one.js' (a comment: not an import)\nexport const four = () => import('./three.js')\n")
  await writeFile(path.join(dir, 'self.js'), "import './self.js'\n")
  assert.deepEqual(findCircles(importGraph(dir, sourceFiles(dir))), [['a/one.js', 'a/two.js', 'three.js'], ['self.js']])
})

/** The most source files at the top of one folder: a reader names its rooms, not its files. */
const MAX_FILES_PER_FOLDER = 12

test(`no folder of simulator/, results/, lib/, runner/ or server/ holds more than ${MAX_FILES_PER_FOLDER} source files at its top`, async () => {
  const { readdir } = await import('node:fs/promises')
  /** @type {string[]} */
  const crowded = []
  /** @param {string} dir relative to the project */
  const walk = async (dir) => {
    const entries = await readdir(path.join(ROOT, dir), { withFileTypes: true })
    const files = entries.filter((e) => e.isFile() && e.name.endsWith('.js'))
    if (files.length > MAX_FILES_PER_FOLDER) crowded.push(`${dir}/: ${files.length} files`)
    for (const e of entries) if (e.isDirectory()) await walk(`${dir}/${e.name}`)
  }
  for (const top of ['simulator', 'results', 'lib', 'runner', 'server']) await walk(top)
  assert.deepEqual(crowded, [], 'split a crowded folder into rooms named for their roles (ARCHITECTURE.md)')
})
