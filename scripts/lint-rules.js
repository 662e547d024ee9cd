/**
 * The project's own lint rules, loaded by eslint.config.js as the `ioswarm` plugin.
 * - comment-references: a comment says why in words a reader of this repository alone can
 *   follow, so it names no issue number of a tracker they do not have and no file outside the
 *   repository (the notes kept beside it). A measurement rule is cited from
 *   docs/measurement.md.
 * - max-code-line: a code line of at most `code` characters (default 160): a longer one does
 *   too much, name a part of it. Comments and lone strings (a line that is one string or one
 *   template literal without `${}`, with at most a property name or a call's name before it
 *   and punctuation beside it, such as a ternary's ? or :, a message or a help paragraph reads
 *   best whole) are exempt; a string or a template literal on a line of code counts.
 */

/** What a comment may not point to: an issue number, a note kept outside the repository. */
export const OUTSIDE_REFERENCE = /\bissues? #?\d+|\bDESIGN\.md\b|\bSTYLE\.md\b|\.\.\/shared\b/i

/** @type {import('eslint').Rule.RuleModule} */
const commentReferences = {
  meta: {
    type: 'suggestion',
    docs: { description: 'comments name no issue number and no file outside the repository' },
    schema: []
  },
  create (context) {
    return {
      Program () {
        for (const comment of context.sourceCode.getAllComments()) {
          const found = OUTSIDE_REFERENCE.exec(comment.value)
          if (found === null || comment.loc === null || comment.loc === undefined) continue
          context.report({
            loc: comment.loc,
            message: `A comment cites "${found[0]}", which a reader of this repository cannot follow: say the why in words ` +
              '(a measurement rule: docs/measurement.md)'
          })
        }
      }
    }
  }
}

/** Punctuation that may stand beside a lone string on its line. */
const LONE_PUNCTUATION = new Set([',', ')', ']', '}', ';', '+', '(', '?', ':', '[', '{'])

/**
 * Whether a line's tokens are one string (a template literal without `${}`), a property name
 * or a call's name before it at most, and punctuation.
 * @param {import('eslint').AST.Token[]} tokens
 * @param {string} text the line
 */
function isLoneString (tokens, text) {
  const strings = tokens.filter((t) => t.type === 'String' || t.type === 'Template')
  if (strings.length !== 1) return false
  if (strings[0].type === 'Template' && text.includes('${')) return false
  return tokens.every((t, i) => t === strings[0] || (t.type === 'Punctuator' && LONE_PUNCTUATION.has(t.value)) ||
    (i === 0 && (t.type === 'Identifier' || t.value === '.')) || (i === 1 && t.type === 'Identifier' && tokens[0].value === '.'))
}

/** @type {import('eslint').Rule.RuleModule} */
const maxCodeLine = {
  meta: {
    type: 'layout',
    docs: { description: 'code lines of at most `code` characters; comments and lone strings exempt' },
    schema: [{ type: 'object', properties: { code: { type: 'integer', minimum: 1 } }, additionalProperties: false }]
  },
  create (context) {
    const max = context.options[0]?.code ?? 160
    return {
      Program () {
        const source = context.sourceCode
        /** @type {Map<number, import('eslint').AST.Token[]>} each line's tokens (a token spanning lines is on each) */
        const byLine = new Map()
        for (const token of source.ast.tokens) {
          for (let line = token.loc.start.line; line <= token.loc.end.line; line++) {
            const list = byLine.get(line)
            if (list) list.push(token)
            else byLine.set(line, [token])
          }
        }
        source.lines.forEach((text, i) => {
          if (text.length <= max) return
          const tokens = byLine.get(i + 1)
          // No token: a comment, or a blank line inside one.
          if (tokens === undefined || isLoneString(tokens, text)) return
          context.report({
            loc: { start: { line: i + 1, column: max }, end: { line: i + 1, column: text.length } },
            message: `This line of code has ${text.length} characters (at most ${max}): name a part of it`
          })
        })
      }
    }
  }
}

/** The `ioswarm` ESLint plugin. */
export const ioswarmPlugin = { rules: { 'comment-references': commentReferences, 'max-code-line': maxCodeLine } }
