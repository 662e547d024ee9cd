/**
 * The project's own lint rules (scripts/lint-rules.js) fail what they are for and pass the
 * rest, on code placed inside the project as `npm run lint` sees it.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ESLint } from 'eslint'

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
