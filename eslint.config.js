import neostandard from 'neostandard'
import { ioswarmPlugin } from './scripts/lint-rules.js'

/**
 * The boundaries of ARCHITECTURE.md ("The parts"), kept by lint rather than only written:
 * - a feature folder imports another only through its public entry: `<folder>/index.js`, or
 *   the index.js of one of its parts (results/collector/, runner/capacity/, server/probe/, …);
 *   bin/ also through the cli.js each folder owns its command in (`<folder>/cli.js`, a part's);
 * - lib/ imports nothing above it;
 * - engines share wire code through simulator/wire/ (which imports no engine), and no engine
 *   imports another's files.
 * Static imports and `import()` of a literal path both count. Import circles are found by
 * scripts/import-circles.js (a test runs it). tests, bench/ and scripts/ may reach inside.
 */
const FEATURES = ['simulator', 'server', 'broadcaster', 'results', 'runner', 'infra', 'recorder', 'bin']
const ENTRY = '(?:[\\w-]+/)?index\\.js$'
const CLI = '(?:[\\w-]+/)?cli\\.js$'

/**
 * A no-restricted-imports pattern and the no-restricted-syntax selector of the same path for `import()`.
 * @param {string} regex over the import's path as written (relative)
 * @param {string} message
 */
function forbid (regex, message) {
  // esquery's regex literals cannot hold a slash: \x2F matches it.
  return { pattern: { regex, message }, selector: { selector: `ImportExpression[source.value=/${regex.replaceAll('/', '\\x2F')}/]`, message } }
}

/**
 * @param {string[]} files
 * @param {ReturnType<typeof forbid>[]} rules
 */
function boundary (files, rules) {
  return {
    files,
    rules: {
      'no-restricted-imports': ['error', { patterns: rules.map((r) => r.pattern) }],
      'no-restricted-syntax': ['error', ...rules.map((r) => r.selector)]
    }
  }
}

/**
 * What a feature folder's files may not import: another folder's internals.
 * @param {string} folder
 */
function featureRules (folder) {
  const others = FEATURES.filter((f) => f !== folder).join('|')
  const allowed = folder === 'bin' ? `(?:${ENTRY}|${CLI})` : ENTRY
  const entries = `its index.js${folder === 'bin' ? ' or cli.js' : ''}`
  return [
    forbid(`^(?:\\.\\./)+(?:${others})/(?!${allowed})`,
      `${folder}/ imports another folder only through its public entry (${entries}): export what you need there`),
    forbid(`^(?:\\.\\./)+(?:${others})$`, 'name the public entry\'s file (index.js)')
  ]
}

const features = FEATURES.map((folder) => boundary([`${folder}/**/*.js`], featureRules(folder)))

// Later blocks replace a rule's options for their files, so each repeats the simulator's own.
const engines = [
  boundary(['simulator/wire/**/*.js'], [
    ...featureRules('simulator'),
    forbid('^(?:\\.\\./)+engines/', 'simulator/wire/ is shared by the engines and imports none of them')
  ]),
  boundary(['simulator/engines/sio.js', 'simulator/engines/websocket.js', 'simulator/engines/websocket/**/*.js'], [
    ...featureRules('simulator'),
    forbid('(?:^|/)lean(?:/|\\.js$)', 'engines share wire code through simulator/wire/, never the lean engine\'s files')
  ]),
  boundary(['simulator/engines/lean.js', 'simulator/engines/lean/**/*.js'], [
    ...featureRules('simulator'),
    forbid('(?:^|/)(?:websocket/|sio\\.js$)|^\\.\\./websocket\\.js$', 'engines share wire code through simulator/wire/, never another engine\'s files')
  ])
]

const lib = [
  boundary(['lib/*.js'], [forbid('^\\.\\./', 'lib/ is the shared leaf: it imports nothing above it')]),
  boundary(['lib/*/*.js'], [forbid('^\\.\\./\\.\\./', 'lib/ is the shared leaf: it imports nothing above it')]),
  boundary(['lib/*/*/*.js'], [forbid('^\\.\\./\\.\\./\\.\\./', 'lib/ is the shared leaf: it imports nothing above it')])
]

/**
 * Code lines of at most 160 characters: a longer one does too much, name a part of it
 * (scripts/lint-rules.js max-code-line: comments and lone strings exempt, a string, template
 * or regex literal on a line of code counting). It holds every file of the project.
 */
const codeLines = {
  files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
  rules: { 'ioswarm/max-code-line': ['error', { code: 160 }] }
}

/** Comments a reader of this repository alone can follow (scripts/lint-rules.js). */
const comments = {
  plugins: { ioswarm: ioswarmPlugin },
  rules: { 'ioswarm/comment-references': 'error' }
}

export default [
  ...neostandard({
    ignores: ['node_modules/**', 'coverage/**', 'results-out/**', 'runs/**']
  }),
  comments,
  codeLines,
  ...features,
  ...engines,
  ...lib
]
