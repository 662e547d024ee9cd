/**
 * The project's own lint rules, loaded by eslint.config.js as the `ioswarm` plugin.
 * - comment-references: a comment says why in words a reader of this repository alone can
 *   follow, so it names no issue number of a tracker they do not have and no file outside the
 *   repository (the notes kept beside it). A measurement rule is cited from
 *   docs/measurement.md.
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

/** The `ioswarm` ESLint plugin. */
export const ioswarmPlugin = { rules: { 'comment-references': commentReferences } }
