/**
 * The project's own lint rules (scripts/lint-rules.js) fail what they are for and pass the
 * rest, on code placed inside the project as `npm run lint` sees it.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readdirSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ESLint } from 'eslint'
import { ioswarmPlugin } from '../../scripts/lint-rules.js'

const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/**
 * The messages of one rule for code at a path of the project.
 * @param {ESLint} eslint
 * @param {string} ruleId
 * @param {string} code
 */
async function ruleMessages (eslint, ruleId, code) {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, 'simulator/x.js') })
  return result.messages.filter((m) => m.ruleId === ruleId)
}

test('comment-references: a comment citing an issue number or a note outside the repository fails; words pass', async () => {
  const eslint = new ESLint({ cwd: ROOT })
  const rule = 'ioswarm/comment-references'
  /** @type {[string, boolean][]} code, allowed */
  const cases = [
    ['// Loaded on first use (issue 26: a light process).\nexport const a = 1\n', false],
    ['/**\n * Why it stops here (DESIGN.md).\n */\nexport const a = 1\n', false],
    ['/** Issue #12 asked for it. */\nexport const a = 1\n', false],
    ['// As ../shared/STYLE.md says.\nexport const a = 1\n', false],
    ['// Loaded on first use: a process loads only what it uses.\nexport const a = 1\n', true],
    ['// The measurement rules: docs/measurement.md.\nexport const a = 1\n', true],
    ["export const a = 'issue 26 in a string is no comment'\n", true]
  ]
  for (const [code, allowed] of cases) {
    const messages = await ruleMessages(eslint, rule, code)
    assert.equal(messages.length, allowed ? 0 : 1, `${JSON.stringify(code)}: ${messages.map((m) => m.message).join('; ')}`)
  }
})

test('max-code-line: a code line over the limit fails, a string or template literal on it counting; comments and lone strings pass', async () => {
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    overrideConfig: [{ plugins: { ioswarm: ioswarmPlugin }, rules: { 'ioswarm/max-code-line': ['error', { code: 40 }] } }]
  })
  const long = 'x'.repeat(50)
  /** @type {[string, boolean][]} code, allowed */
  const cases = [
    ['export const a = [1, 2, 3].map((n) => n * 2).filter(Boolean)\n', false],
    [`export const a = \`${long}\${1}\`\n`, false],
    [`export const a = f(1, '${long}')\n`, false],
    [`// ${long}\nexport const a = 1\n`, true],
    [`export const a = [\n  '${long}',\n  \`${long}\` +\n  '${long}'\n]\n`, true],
    [`export const a = {\n  describe: '${long}'\n}\n`, true],
    [`export const a = y\n  .usage('${long}')\n  .help()\n`, true],
    [`export const a = b\n  ? '${long}'\n  : '${long}'\n`, true],
    [`export const a = \`\n${long}\n\${1}\`\n`, true]
  ]
  for (const [code, allowed] of cases) {
    const messages = await ruleMessages(eslint, 'ioswarm/max-code-line', code)
    assert.equal(messages.length, allowed ? 0 : 1, `${JSON.stringify(code)}: ${messages.map((m) => m.message).join('; ')}`)
  }
})

/** Folders that hold no code of the project's own. */
const NOT_OURS = new Set(['node_modules', 'coverage', 'runs', 'results-out', 'types'])

/** The project's own .js, .cjs and .mjs files (tests included; no dependencies, no dot files). */
function projectFiles () {
  const files = /** @type {string[]} */ (readdirSync(ROOT, { recursive: true, encoding: 'utf8' }))
  return files.filter((f) => /\.[cm]?js$/.test(f) && f.split(path.sep).every((part) => !part.startsWith('.') && !NOT_OURS.has(part)))
    .map((f) => path.join(ROOT, f))
}

/**
 * Code lines over 160 characters (comments and lone strings exempt) the project still has: none.
 * eslint.config.js holds every file to it; this counts the same over every file of the project.
 * Name a part of a long line rather than raise it.
 */
const LONG_CODE_LINES = 0

test('the project has no more code lines over 160 characters than it had', async () => {
  const eslint = new ESLint({
    cwd: ROOT,
    overrideConfigFile: true,
    overrideConfig: [{ plugins: { ioswarm: ioswarmPlugin }, rules: { 'ioswarm/max-code-line': ['error', { code: 160 }] } }]
  })
  const results = await eslint.lintFiles(projectFiles())
  const long = results.flatMap((r) => r.messages.filter((m) => m.ruleId === 'ioswarm/max-code-line')
    .map((m) => `${path.relative(ROOT, r.filePath)}:${m.line}`))
  assert.ok(long.length <= LONG_CODE_LINES,
    `${long.length} code lines over 160 characters (at most ${LONG_CODE_LINES}); the first: ${long.slice(0, 5).join(', ')}`)
})
