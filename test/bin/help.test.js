/**
 * A command's --help shows its options in their groups, the groups most runs need in full
 * and the rest named; --help-all (and `ioswarm help COMMAND --all`) shows every one in full.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { cliParser, helpArgs } from '../../bin/cli.js'
import { GROUP_NAMES, OPTIONS_DOC, forCommand, optionsOf } from '../../lib/cli-options/index.js'
import { namedOnly } from '../../lib/cli-options/help.js'
import { runCli } from '../helpers/cli.js'

const COMMANDS = ['simulate', 'run', 'capacity', 'serve', 'broadcast', 'report', 'probe', 'fleet up', 'fleet exec', 'fleet down', 'fleet status']

/**
 * What the CLI prints for these arguments at 100 columns, in yargs' English.
 * @param {string[]} args
 * @returns {Promise<string>}
 */
async function helpOf (args) {
  let output = ''
  await cliParser(args, 100).locale('en').exitProcess(false).parseAsync(helpArgs(args).args, {}, (_error, _argv, out) => { output = out })
  return output
}

/** @param {string} text */
const squeeze = (text) => text.replace(/\s+/g, '')

/**
 * Whether the help shows an option in full: its switch at the start of a line, and its describe.
 * @param {string} help
 * @param {import('../../lib/cli-options/index.js').OptionDef} o
 * @param {string} command
 */
function inFull (help, o, command) {
  return new RegExp(`^ {2}(-${o.alias}, )?\\s*--${o.name}(\\s|$)`, 'm').test(help) && squeeze(help).includes(squeeze(forCommand(o.describe, command)))
}

test('--help shows each option in full in its group, or names it in the last lines; --help-all shows every one in full', async () => {
  for (const command of COMMANDS) {
    const words = command.split(' ')
    const brief = await helpOf([...words, '--help'])
    const all = await helpOf([...words, '--help-all'])
    assert.equal(await helpOf(['help', ...words, '--all']), all, `ioswarm help ${command} --all`)
    const more = brief.indexOf('More options, shown in full by --help-all:')
    for (const o of optionsOf(command).filter((row) => !row.hidden)) {
      assert.ok(inFull(all, o, command), `${command} --help-all shows --${o.name} in full`)
      if (namedOnly(forCommand(o.group, command), command)) {
        assert.ok(!inFull(brief, o, command), `${command} --help names --${o.name} only`)
        assert.ok(more > 0 && new RegExp(`--${o.name}(,|\\s|$)`).test(brief.slice(more)), `${command} --help names --${o.name}`)
      } else {
        assert.ok(inFull(brief, o, command), `${command} --help shows --${o.name} in full`)
      }
    }
    assert.ok(brief.trimEnd().endsWith(OPTIONS_DOC), `${command} --help ends pointing to ${OPTIONS_DOC}`)
  }
})

test('--help lists the groups in their fixed order, each under its own heading', async () => {
  const help = await helpOf(['simulate', '--help-all'])
  const headings = help.split('\n').filter((line) => GROUP_NAMES.includes(/** @type {any} */ (line.replace(/:$/, ''))))
  assert.deepEqual(headings.map((h) => h.replace(/:$/, '')),
    GROUP_NAMES.filter((g) => optionsOf('simulate').some((o) => forCommand(o.group, 'simulate') === g)))
  assert.ok(headings.length >= 8, headings.join(', '))
})

test('simulate, run and capacity --help each fit in 150 lines at 100 columns (the real binary, as a pipe sees it)', async (t) => {
  for (const command of ['simulate', 'run', 'capacity']) {
    const { code, stdout } = await runCli(t, ['bin/ioswarm.js', command, '--help'], { env: { COLUMNS: '100' } })
    assert.equal(code, 0)
    const lines = stdout.split('\n').length - 1
    assert.ok(lines <= 150, `${command} --help: ${lines} lines`)
    assert.ok(stdout.split('\n').every((line) => line.length <= 100), `${command} --help: no line over 100 columns`)
  }
})

test('help arguments: --help-all and help COMMAND [--all] become COMMAND --help', () => {
  assert.deepEqual(helpArgs(['simulate', '--help-all']), { args: ['simulate', '--help'], all: true, shown: true })
  assert.deepEqual(helpArgs(['help', 'fleet', 'up', '--all']), { args: ['fleet', 'up', '--help'], all: true, shown: true })
  assert.deepEqual(helpArgs(['help', 'run']), { args: ['run', '--help'], all: false, shown: true })
  assert.deepEqual(helpArgs(['run', '-c', '5']), { args: ['run', '-c', '5'], all: false, shown: false })
})
