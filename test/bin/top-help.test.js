import { test } from 'node:test'
import assert from 'node:assert/strict'
import { cliParser } from '../../bin/cli.js'
import { wrap } from '../../bin/help-columns.js'
import { FAST_MIN_WIDTH, englishHelp, helpWidth, topHelp } from '../../bin/top-help.js'

/**
 * The top-level help as yargs renders it at this width (what `ioswarm --help` printed before the fast path, less its newline).
 * @param {number} width
 * @returns {Promise<string>}
 */
function yargsHelp (width) {
  return new Promise((resolve, reject) => {
    cliParser(['--help'], width).locale('en').parse(['--help'], {}, (error, _argv, output) => error ? reject(error) : resolve(output))
  })
}

test('the help printed without yargs is yargs\' own, byte for byte, at every width it is printed at', async () => {
  const widths = []
  for (let width = FAST_MIN_WIDTH; width <= helpWidth(Infinity); width++) widths.push(width)
  assert.deepEqual([widths[0], widths.at(-1)], [40, 110])
  for (const width of widths) assert.equal(topHelp(width), await yargsHelp(width), `width ${width}`)
  // The layout is plain ASCII: a character's width is 1, as the port assumes.
  assert.match(topHelp(100), /^[\x20-\x7e\n]+$/)
  // It wraps: the widest and the narrowest differ, and no line passes the width.
  assert.ok(topHelp(40).split('\n').length > topHelp(110).split('\n').length)
  for (const width of [40, 73, 110]) assert.ok(topHelp(width).split('\n').every((line) => line.length <= width), `width ${width}`)
})

test('wrap breaks at spaces and breaks a word longer than a line, as wrap-ansi\'s hard mode', () => {
  assert.equal(wrap('aaa bbb ccc', 7), 'aaa bbb\nccc')
  assert.equal(wrap('aaaaaaaaaa', 4), 'aaaa\naaaa\naa')
  assert.equal(wrap('ab cdefghij', 4), 'ab\ncdef\nghij')
  assert.equal(wrap('one  two   ', 20), 'one  two')
  assert.equal(wrap('a\n\nb', 5), 'a\n\nb')
})

test('the width is the terminal\'s up to 110, 100 when not a terminal; the help is English unless the locale says otherwise', () => {
  assert.deepEqual([helpWidth(undefined), helpWidth(80), helpWidth(200)], [100, 80, 110])
  for (const env of [{}, { LANG: 'C.UTF-8' }, { LANG: 'en_GB.UTF-8' }, { LC_ALL: 'POSIX' }, { LANGUAGE: 'en' }, { LC_ALL: 'en_US', LANG: 'de_DE' }]) {
    assert.equal(englishHelp(env), true, JSON.stringify(env))
  }
  for (const env of [{ LANG: 'de_DE.UTF-8' }, { LC_MESSAGES: 'fr_FR' }, { LC_ALL: 'pirate', LANG: 'en_US' }, { LANGUAGE: 'zh_CN' }]) {
    assert.equal(englishHelp(env), false, JSON.stringify(env))
  }
})
