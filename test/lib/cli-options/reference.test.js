/**
 * docs/options.md is the options tables written out (npm run docs): every row in a known
 * group, every option under its own anchor, and the file as the tables would write it now.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { readFileSync } from 'node:fs'
import { GROUP_NAMES, OPTIONS, forCommand, optionsOf } from '../../../lib/cli-options/index.js'
import { commandsOf, optionsReference } from '../../../lib/cli-options/reference.js'
import { optionsDocument } from '../../../scripts/options-doc.js'

const DOC = new URL('../../../docs/options.md', import.meta.url)

test('every option row names a group of the fixed list, for every command that takes it', () => {
  const known = new Set(GROUP_NAMES)
  const wrong = []
  for (const command of commandsOf(OPTIONS)) {
    for (const o of optionsOf(command)) {
      const group = o.group === undefined ? undefined : forCommand(o.group, command)
      if (!known.has(/** @type {any} */ (group))) wrong.push(`--${o.name} on ${command}: group ${JSON.stringify(group)}`)
    }
  }
  assert.deepEqual(wrong, [], `rows without a known group (one of ${GROUP_NAMES.join(', ')})`)
})

test('every describe is one line of at most 120 characters (what --help shows; details hold the rest)', () => {
  const long = []
  for (const o of OPTIONS) {
    const each = typeof o.describe === 'string' ? { '': o.describe } : o.describe
    for (const [command, text] of Object.entries(each)) {
      if (text.length > 120 || /\n/.test(text) || text.trim() === '') long.push(`--${o.name}${command ? ` (${command})` : ''}: ${text.length} characters`)
    }
  }
  assert.deepEqual(long, [], 'describes to shorten (move the rest to details)')
})

test('docs/options.md is what the options tables write', () => {
  const written = readFileSync(DOC, 'utf8')
  assert.ok(written === optionsDocument(), 'docs/options.md is stale: run npm run docs (and commit docs/options.md)')
})

test('every option has one anchor, its flag without dashes, and every command its section', () => {
  const text = optionsDocument()
  for (const name of new Set(OPTIONS.map((o) => o.name))) {
    assert.equal(text.split(`<a id="${name}"></a>`).length - 1, 1, `anchor of --${name}`)
  }
  for (const command of commandsOf(OPTIONS)) assert.match(text, new RegExp(`^## ioswarm ${command}$`, 'm'), command)
  // The threshold grammar --help points to.
  assert.match(text, /^<a id="thresholds"><\/a>\n\n## Thresholds/m)
  assert.match(text, /^ {2}nodes\.imbalance /m)
  // Each command's section links each of its options to its anchor.
  const simulate = text.slice(text.indexOf('## ioswarm simulate\n'), text.indexOf('\n## ', text.indexOf('## ioswarm simulate\n') + 1))
  for (const o of optionsOf('simulate')) assert.ok(simulate.includes(`](#${o.name}) |`), `simulate links --${o.name}`)
})

test('the reference writes a row\'s facts: aliases, type, default, environment variable, commands, describe and details', () => {
  /** @type {import('../../../lib/cli-options/index.js').OptionDef} */
  const row = {
    name: 'made-up',
    alias: 'm',
    group: 'Traffic',
    type: 'string',
    array: true,
    default: '5/s',
    commands: ['simulate', 'broadcast'],
    describe: { simulate: 'Short line | with a bar', broadcast: 'Another line' },
    details: 'More words, <with> *marks*, and `a|code` span'
  }
  const text = optionsReference([row])
  assert.match(text, /^## ioswarm simulate$/m)
  assert.match(text, /^\| \[`--made-up`, `-m`\]\(#made-up\) \| Short line \\\| with a bar \|$/m)
  assert.match(text, /^<a id="made-up"><\/a>$/m)
  assert.match(text, /^- type: string, repeatable$/m)
  assert.match(text, /^- default: 5\/s$/m)
  assert.match(text, /^- environment: `IOSWARM_MADE_UP`$/m)
  assert.match(text, /^- commands: `simulate`, `broadcast`$/m)
  assert.match(text, /^- `simulate`: Short line \| with a bar$/m)
  assert.match(text, /^- `broadcast`: Another line$/m)
  assert.match(text, /^More words, &lt;with> \\\*marks\\\*, and `a\|code` span$/m)
})
