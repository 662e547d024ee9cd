/**
 * Every relative link of the project's prose resolves: the file exists, and an anchor names a
 * heading (GitHub's slug of it) or an explicit `<a id>` of the target page. Links into
 * docs/options.md are checked once that generated page exists.
 */
import { test } from 'node:test'
import assert from 'node:assert/strict'
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { ROOT } from '../helpers/cli.js'

const PAGES = [
  'README.md', 'CONTRIBUTING.md', 'ARCHITECTURE.md', 'bench/README.md', 'simulator/README.md', 'results/README.md',
  'lib/README.md', 'server/README.md', 'infra/README.md',
  ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
  ...(existsSync(join(ROOT, 'bench/results')) ? readdirSync(join(ROOT, 'bench/results')).filter((f) => f.endsWith('.md')).map((f) => `bench/results/${f}`) : [])
].filter((page) => existsSync(join(ROOT, page)))

/**
 * A page's text without its fenced code blocks and inline code spans (links there are examples).
 * @param {string} text
 */
function prose (text) {
  return text.replace(/^```[\s\S]*?^```/gm, '').replace(/`[^`\n]*`/g, '``')
}

/**
 * The anchors a page offers: GitHub's slug of each heading (a repeat gets -1, -2, …) and each `<a id|name>`.
 * @param {string} text
 */
function anchorsOf (text) {
  const anchors = new Set([...text.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)].map((m) => m[1]))
  /** @type {Map<string, number>} */
  const seen = new Map()
  for (const [, heading] of text.replace(/^```[\s\S]*?^```/gm, '').matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const plain = heading.replace(/\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, '')
    const slug = plain.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-')
    const n = seen.get(slug) ?? 0
    seen.set(slug, n + 1)
    anchors.add(n === 0 ? slug : `${slug}-${n}`)
  }
  return anchors
}

test('every relative link of the README, the guides and the folder READMEs resolves, anchors included', () => {
  assert.ok(PAGES.includes('docs/measurement.md') && PAGES.length >= 10, `the pages are found (${PAGES.length})`)
  const broken = []
  let checked = 0
  for (const page of PAGES) {
    const text = readFileSync(join(ROOT, page), 'utf8')
    for (const [, target] of prose(text).matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      if (/^[a-z]+:/i.test(target)) continue
      const [path, anchor] = target.split('#')
      const file = path === '' ? join(ROOT, page) : join(ROOT, dirname(page), decodeURI(path))
      const name = relative(ROOT, file)
      if (name === 'docs/options.md' && !existsSync(file)) continue
      checked++
      if (!existsSync(file)) { broken.push(`${page}: ${target} (no such file)`); continue }
      if (anchor === undefined || !file.endsWith('.md') || statSync(file).isDirectory()) continue
      if (!anchorsOf(readFileSync(file, 'utf8')).has(anchor)) broken.push(`${page}: ${target} (no such anchor in ${name})`)
    }
  }
  assert.ok(checked > 100, `links were checked (${checked})`)
  assert.deepEqual(broken, [])
})

test('the anchors are GitHub\'s slugs of the headings', () => {
  const anchors = anchorsOf('# A title\n## `ioswarm report`: HTML reports\n## result.json and the collector\n## Twice\n## Twice\n<a id="emit-rate"></a>\n```\n# not a heading\n```\n')
  assert.deepEqual([...anchors].sort(), ['a-title', 'emit-rate', 'ioswarm-report-html-reports', 'resultjson-and-the-collector', 'twice', 'twice-1'])
})
