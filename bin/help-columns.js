/**
 * The part of cliui's layout (cliui 9, which yargs renders its help with) that `ioswarm --help`
 * uses, for plain printable ASCII text, where a string's width is its length: rows of columns
 * with padding, fixed widths, right alignment and spans, each column word-wrapped the way
 * wrap-ansi's hard mode wraps (wrap-ansi 9). cliui's own module cannot be loaded without
 * string-width and wrap-ansi, whose load builds Intl.Segmenters (~35 ms of a 60 ms budget
 * for the help). test/bin/top-help.test.js holds this to yargs' output, byte for
 * byte, at every width the fast help is printed at.
 */

/** @typedef {{ text: string, padding?: number[], width?: number, align?: 'right' }} Column */
/** @typedef {Column[] & { span?: boolean }} Row */
/** @typedef {{ text: string, span?: boolean, hidden?: boolean }} Line */

const RIGHT = 1
const LEFT = 3

export class Columns {
  /** @param {number} width */
  constructor (width) {
    this.width = width
    /** @type {Row[]} */
    this.rows = []
  }

  /**
   * A row of columns whose next row may continue on its last line (cliui's span).
   * @param {...(Column | string)} cols
   */
  span (...cols) {
    this.div(...cols).span = true
  }

  /**
   * A row of columns; a single string holding a newline or a tab is a small table (cliui's layout DSL).
   * @param {...(Column | string)} cols
   * @returns {Row}
   */
  div (...cols) {
    if (cols.length === 0) return this.div('')
    if (cols.length === 1 && typeof cols[0] === 'string' && /[\t\n]/.test(cols[0])) return this.table(cols[0])
    /** @type {Row} */
    const row = cols.map((col) => typeof col === 'string' ? { text: col, padding: measurePadding(col) } : col)
    this.rows.push(row)
    return row
  }

  /** @param {string} text */
  table (text) {
    const rows = text.split('\n').map((row) => row.split('\t'))
    let leftWidth = 0
    for (const cols of rows) {
      if (cols.length > 1 && cols[0].length > leftWidth) leftWidth = Math.min(Math.floor(this.width * 0.5), cols[0].length)
    }
    for (const cols of rows) {
      this.div(...cols.map((text, i) => ({ text: text.trim(), padding: measurePadding(text), width: i === 0 && cols.length > 1 ? leftWidth : undefined })))
    }
    return this.rows[this.rows.length - 1]
  }

  toString () {
    /** @type {Line[]} */
    const lines = []
    for (const row of this.rows) this.rowToLines(row, lines)
    return lines.filter((line) => !line.hidden).map((line) => line.text).join('\n')
  }

  /**
   * @param {Row} row
   * @param {Line[]} lines
   */
  rowToLines (row, lines) {
    this.rasterize(row).forEach((cells, r) => {
      let str = ''
      cells.forEach((cell, c) => {
        const col = row[c]
        const wrapWidth = innerWidth(col)
        let ts = cell
        if (wrapWidth > cell.length) ts += ' '.repeat(wrapWidth - cell.length)
        // Padded to wrapWidth above, so the right-aligned text is never shorter than it.
        if (col.align === 'right') ts = alignRight(ts, wrapWidth)
        const padding = col.padding || [0, 0, 0, 0]
        if (padding[LEFT]) str += ' '.repeat(padding[LEFT])
        str += ts
        if (padding[RIGHT]) str += ' '.repeat(padding[RIGHT])
        if (r === 0 && lines.length > 0) str = renderInline(str, lines[lines.length - 1])
      })
      lines.push({ text: str.replace(/ +$/, ''), span: row.span })
    })
  }

  /**
   * Each column's lines, row by row.
   * @param {Row} row
   */
  rasterize (row) {
    /** @type {string[][]} */
    const cells = []
    const widths = this.columnWidths(row)
    row.forEach((col, c) => {
      col.width = widths[c]
      const wrapped = wrap(col.text, innerWidth(col)).split('\n')
      if (col.padding) {
        wrapped.unshift(...new Array(col.padding[0] || 0).fill(''))
        wrapped.push(...new Array(col.padding[2] || 0).fill(''))
      }
      wrapped.forEach((str, r) => {
        if (!cells[r]) cells.push([])
        const line = cells[r]
        for (let i = 0; i < c; i++) if (line[i] === undefined) line.push('')
        line.push(str)
      })
    })
    return cells
  }

  /** @param {Row} row */
  columnWidths (row) {
    let unset = row.length
    let remaining = this.width
    const widths = row.map((col) => {
      if (!col.width) return undefined
      unset--
      remaining -= col.width
      return col.width
    })
    const unsetWidth = unset ? Math.floor(remaining / unset) : 0
    return widths.map((w, i) => w === undefined ? Math.max(unsetWidth, 1 + (row[i].padding?.[LEFT] || 0) + (row[i].padding?.[RIGHT] || 0)) : w)
  }
}

/** @param {string} str */
function measurePadding (str) {
  return [0, /** @type {RegExpMatchArray} */ (str.match(/\s*$/))[0].length, 0, /** @type {RegExpMatchArray} */ (str.match(/^\s*/))[0].length]
}

/**
 * A column's width less its padding.
 * @param {Column} col
 */
function innerWidth (col) {
  return (col.width || 0) - (col.padding ? (col.padding[LEFT] || 0) + (col.padding[RIGHT] || 0) : 0)
}

/**
 * @param {string} str
 * @param {number} width
 */
function alignRight (str, width) {
  str = str.trim()
  return str.length < width ? ' '.repeat(width - str.length) + str : str
}

/**
 * A row's first line goes on the last line of a span when it fits there.
 * @param {string} source
 * @param {Line} previous
 */
function renderInline (source, previous) {
  const leading = /** @type {RegExpMatchArray} */ (source.match(/^ */))[0].length
  const target = previous.text
  const targetWidth = target.trimEnd().length
  if (!previous.span || leading < targetWidth) return source
  previous.hidden = true
  return target.trimEnd() + ' '.repeat(leading - targetWidth) + source.trimStart()
}

/**
 * wrap-ansi's hard wrap of plain text: each line wrapped at spaces, a word longer than a line broken.
 * @param {string} text
 * @param {number} columns
 */
export function wrap (text, columns) {
  return text.normalize().replaceAll('\r\n', '\n').split('\n').map((line) => wrapLine(line, columns)).join('\n')
}

/**
 * @param {string} line
 * @param {number} columns
 */
function wrapLine (line, columns) {
  if (line.trim() === '') return ''
  const words = line.split(' ')
  const rows = ['']
  words.forEach((word, index) => {
    rows[rows.length - 1] = rows[rows.length - 1].trimStart()
    let rowLength = rows[rows.length - 1].length
    if (index !== 0 && rowLength > 0) {
      rows[rows.length - 1] += ' '
      rowLength++
    }
    if (word.length > columns) {
      const breaksStartingThisLine = 1 + Math.floor((word.length - (columns - rowLength) - 1) / columns)
      const breaksStartingNextLine = Math.floor((word.length - 1) / columns)
      if (breaksStartingNextLine < breaksStartingThisLine) rows.push('')
      wrapWord(rows, word, columns)
      return
    }
    if (rowLength + word.length > columns && rowLength > 0 && word.length > 0) rows.push('')
    rows[rows.length - 1] += word
  })
  return rows.map((row) => row.replace(/ +$/, '')).join('\n')
}

/**
 * A word longer than a line, broken across lines.
 * @param {string[]} rows
 * @param {string} word
 * @param {number} columns
 */
function wrapWord (rows, word, columns) {
  let visible = rows[rows.length - 1].length
  for (let i = 0; i < word.length; i++) {
    if (visible + 1 <= columns) {
      rows[rows.length - 1] += word[i]
    } else {
      rows.push(word[i])
      visible = 0
    }
    visible++
    if (visible === columns && i < word.length - 1) {
      rows.push('')
      visible = 0
    }
  }
  if (!visible && rows[rows.length - 1].length > 0 && rows.length > 1) rows[rows.length - 2] += rows.pop()
}
