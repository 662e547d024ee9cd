import { test } from 'node:test'
import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import { displayQuote, shellJoin, shellQuote } from '../../../infra/fleet/quote.js'

// Words a shell would otherwise expand, split or run. None does harm if quoting failed:
// the test would see the expansion in the output instead.
const HOSTILE = [
  "it's", '$(echo INJECTED)', '`echo INJECTED`', 'a b', '*', '~', '=ls', '-n', '\\', '"', '\\\'',
  '', ' ', '!', '!!', '$HOME', '$' + '{PATH}', 'a;echo INJECTED', 'a|b', 'a&b', '#x', 'x#y', 'é ü', '%1', '{a,b}', '[ab]'
]

/**
 * Runs printf '%s\n' with the given quoted words in a real shell; returns the words it saw.
 * @param {string} shell
 * @param {string} words already quoted
 */
function echoWords (shell, words) {
  const out = spawnSync(shell, ['-c', `printf '%s\\n' ${words}`], { encoding: 'utf8' })
  assert.equal(out.status, 0, out.stderr)
  return out.stdout.split('\n').slice(0, -1)
}

test('safe words stay bare; the rest are single-quoted', () => {
  assert.equal(shellQuote('pm2'), 'pm2')
  assert.equal(shellQuote('ioswarm@0.1.0'), 'ioswarm@0.1.0')
  assert.equal(shellQuote('IOSWARM_URL=http://10.0.0.1:3000'), 'IOSWARM_URL=http://10.0.0.1:3000')
  assert.equal(shellQuote(''), "''")
  assert.equal(shellQuote("it's"), "'it'\\''s'")
  assert.equal(shellQuote('=ls'), "'=ls'", 'zsh expands a leading =')
  assert.equal(shellQuote('~'), "'~'")
})

test('every hostile word reaches the command unchanged through sh', () => {
  assert.deepEqual(echoWords('sh', shellJoin(HOSTILE)), HOSTILE)
})

test('a word quoted twice (a remote command inside a local line) survives two shells', () => {
  const remote = shellJoin(['printf', '%s\\n', ...HOSTILE])
  const out = spawnSync('sh', ['-c', `sh -c ${shellQuote(remote)}`], { encoding: 'utf8' })
  assert.equal(out.status, 0, out.stderr)
  assert.deepEqual(out.stdout.split('\n').slice(0, -1), HOSTILE)
})

test('newlines stay literal in shellQuote, and displayQuote keeps them on one line for bash', (t) => {
  const words = ['a\nb', 'tab\there', 'bell\x07', "q'\\\n"]
  assert.equal(shellQuote('a\nb'), "'a\nb'")
  const shown = shellJoin(words, displayQuote)
  assert.ok(!shown.includes('\n'), shown)
  assert.equal(displayQuote('a\nb'), "$'a\\nb'")
  assert.equal(displayQuote('plain'), 'plain')
  if (spawnSync('bash', ['-c', 'true']).status !== 0) return t.skip('no bash to run $\'…\' words')
  const out = spawnSync('bash', ['-c', `printf '%s\\0' ${shown}`], { encoding: 'utf8' })
  assert.deepEqual(out.stdout.split('\0').slice(0, -1), words)
})
