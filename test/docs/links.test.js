/**
 * Every relative link of the project's prose resolves: the file exists, and an anchor names a
 * heading (GitHub's slug of it) or an explicit `<a id>` of the target page. Links into
 * docs/options.md are checked once that generated page exists. The code's citations of a
 * guide (`docs/measurement.md#missing` in a comment) are held to the same rule.
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

test('every file the pages name in code spans exists (the dated bench records keep the names of their day)', () => {
  const broken = []
  let checked = 0
  for (const page of PAGES.filter((p) => !p.startsWith('bench/results/'))) {
    const text = readFileSync(join(ROOT, page), 'utf8')
    for (const [, path] of text.matchAll(/`((?:[\w.-]+\/)+[\w.-]+\.(?:js|cjs|mjs|py|json|yaml|sh|md))`/g)) {
      const top = path.split('/')[0]
      if (!existsSync(join(ROOT, top)) && !existsSync(join(ROOT, dirname(page), top))) continue
      checked++
      if (!existsSync(join(ROOT, path)) && !existsSync(join(ROOT, dirname(page), path))) broken.push(`${page}: ${path}`)
    }
  }
  assert.ok(checked > 50, `paths were checked (${checked})`)
  assert.deepEqual(broken, [])
})

/** The source folders whose comments may cite a guide. */
const SOURCES = ['bin', 'broadcaster', 'infra', 'lib', 'results', 'runner', 'scripts', 'server', 'simulator', 'bench', 'test']

test('every docs/ page, ARCHITECTURE.md or CONTRIBUTING.md section the code cites exists', () => {
  const files = ['index.js', 'client.js', ...SOURCES.flatMap((dir) => readdirSync(join(ROOT, dir), { recursive: true, encoding: 'utf8' })
    .filter((f) => /\.(c?js)$/.test(f) && !f.split(/[\\/]/).includes('node_modules')).map((f) => `${dir}/${f}`))]
  const broken = []
  for (const file of files) {
    for (const [, page, anchor] of readFileSync(join(ROOT, file), 'utf8')
      .matchAll(/\b(docs\/[a-z0-9-]+\.md|ARCHITECTURE\.md|CONTRIBUTING\.md)(?:#([a-z0-9-]+))?/g)) {
      const target = join(ROOT, page)
      if (page === 'docs/options.md' && !existsSync(target)) continue
      if (!existsSync(target)) broken.push(`${file}: ${page} (no such file)`)
      else if (anchor && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${file}: ${page}#${anchor} (no such anchor)`)
    }
  }
  assert.deepEqual(broken, [])
})

test('the anchors are GitHub\'s slugs of the headings', () => {
  const anchors = anchorsOf(
    '# A title\n## `ioswarm report`: HTML reports\n## result.json and the collector\n## Twice\n## Twice\n<a id="emit-rate"></a>\n```\n# not a heading\n```\n')
  assert.deepEqual([...anchors].sort(), ['a-title', 'emit-rate', 'ioswarm-report-html-reports', 'resultjson-and-the-collector', 'twice', 'twice-1'])
})

test('the README and bench/README.md stay short pages that link to the rest', () => {
  const lines = (/** @type {string} */ page) => readFileSync(join(ROOT, page), 'utf8').split('\n').length
  assert.ok(lines('README.md') <= 250, `README.md has ${lines('README.md')} lines: move the detail to a guide in docs/`)
  assert.ok(lines('bench/README.md') <= 200, `bench/README.md has ${lines('bench/README.md')} lines: records go to bench/results/`)
})

test('docs/README.md lists every guide in docs/', () => {
  const index = readFileSync(join(ROOT, 'docs/README.md'), 'utf8')
  const listed = new Set([...prose(index).matchAll(/\]\(([\w-]+\.md)(?:#[^)]*)?\)/g)].map((m) => m[1]))
  const pages = readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md') && f !== 'README.md')
  assert.ok(pages.length >= 10, `the guides are found (${pages.length})`)
  assert.deepEqual(pages.filter((page) => !listed.has(page)), [], 'guides missing from docs/README.md')
})
