/**
 * POSIX shell quoting. A fleet command crosses two shells: the remote login shell runs the
 * command string that ssh sends (ssh joins its arguments with spaces and quotes nothing),
 * and a --dry-run line is meant to be pasted into a local shell. Both get quoted words.
 */

// Words made only of these need no quotes in sh, bash, dash or zsh. The first character is
// stricter: zsh expands a leading `=` (=cmd → its path) and `~` is tilde expansion.
const SAFE_WORD = /^[A-Za-z0-9_./@+,-][A-Za-z0-9_./@%+=:,-]*$/

// Control characters cannot appear on one printed line inside single quotes.
// eslint-disable-next-line no-control-regex
const CONTROL = /[\x00-\x1f\x7f]/

/**
 * Quotes one word for a POSIX shell: bare when safe, else in single quotes (each `'` as `'\''`).
 * Newlines stay literal inside the quotes, which every POSIX shell accepts.
 * @param {string} word
 */
export function shellQuote (word) {
  if (word === '') return "''"
  if (SAFE_WORD.test(word)) return word
  return `'${word.replaceAll("'", "'\\''")}'`
}

/**
 * Quotes one word for a line printed to a terminal: as shellQuote, except that a word with
 * control characters (a newline…) is written as bash/zsh `$'…'`, so it stays on one line.
 * @param {string} word
 */
export function displayQuote (word) {
  if (!CONTROL.test(word)) return shellQuote(word)
  let out = ''
  for (const ch of word) {
    const code = ch.codePointAt(0) ?? 0
    if (ch === '\\' || ch === "'") out += `\\${ch}`
    else if (ch === '\n') out += '\\n'
    else if (ch === '\t') out += '\\t'
    else if (ch === '\r') out += '\\r'
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`
    else out += ch
  }
  return `$'${out}'`
}

/**
 * One command line from an argv: each word quoted, joined by spaces.
 * @param {string[]} argv
 * @param {(word: string) => string} [quote]
 */
export function shellJoin (argv, quote = shellQuote) {
  return argv.map(quote).join(' ')
}
