/**
 * The report's stylesheet: system fonts only (no web fonts, the page must work offline),
 * one column on narrow screens, two chart columns on wide ones.
 */
export const STYLE = `
:root { --fg: #1d232b; --muted: #5d6b7a; --line: #dde3ea; --bg: #f6f8fa; --card: #fff;
  --ok: #1f7a3d; --ok-bg: #e3f4e8; --bad: #b42318; --bad-bg: #fdecea; --warn-bg: #fff6e0; --warn: #8a5a00; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
main { max-width: 1280px; margin: 0 auto; padding: 0 20px 40px; }
header.top { background: var(--card); border-bottom: 1px solid var(--line); }
header.top .inner { max-width: 1280px; margin: 0 auto; padding: 18px 20px; display: flex; gap: 24px; align-items: flex-start; justify-content: space-between; flex-wrap: wrap; }
h1 { font-size: 22px; margin: 0 0 4px; overflow-wrap: anywhere; }
h2 { font-size: 18px; margin: 32px 0 12px; padding-bottom: 6px; border-bottom: 2px solid var(--line); overflow-wrap: anywhere; }
h3 { font-size: 14px; margin: 0; }
section > h3 { margin: 18px 0 6px; }
footer dl { display: grid; grid-template-columns: max-content 1fr; gap: 4px 14px; margin: 0; }
footer dt { font-weight: 600; color: var(--fg); }
footer dd { margin: 0; }
.sub, .muted { color: var(--muted); }
.sub { margin: 0; overflow-wrap: anywhere; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 10px 0 0; }
dl.facts dt { color: var(--muted); }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
.verdict { font-weight: 700; font-size: 16px; padding: 10px 16px; border-radius: 8px; white-space: nowrap; }
.verdict.pass { color: var(--ok); background: var(--ok-bg); }
.verdict.fail { color: var(--bad); background: var(--bad-bg); }
.verdict.none { color: var(--muted); background: var(--bg); font-weight: 500; }
nav { margin: 14px 0 0; display: flex; gap: 14px; flex-wrap: wrap; }
nav a { color: #245ea8; text-decoration: none; }
nav a:hover { text-decoration: underline; }
ul.caveats { background: var(--warn-bg); color: var(--warn); border-radius: 8px; padding: 10px 14px 10px 32px; margin: 12px 0; }
ul.caveats li { overflow-wrap: anywhere; }
.table-wrap { overflow-x: auto; background: var(--card); border: 1px solid var(--line); border-radius: 8px; margin: 8px 0 16px; }
table { border-collapse: collapse; width: 100%; font-variant-numeric: tabular-nums; }
th, td { padding: 5px 8px; border-bottom: 1px solid var(--line); text-align: left; vertical-align: top; white-space: nowrap; }
td.wrap { white-space: normal; overflow-wrap: anywhere; min-width: 16em; }
.table-wrap.fit th, .table-wrap.fit td { padding: 5px 5px; }
.table-wrap.fit td:not(.num) { white-space: normal; }
.table-wrap.fit td.wrap { min-width: 8em; }
th { background: var(--bg); font-weight: 600; white-space: normal; vertical-align: bottom; }
table { font-size: 13px; }
td.num { text-align: right; white-space: nowrap; }
tbody tr:last-child td { border-bottom: 0; }
tr.fail td { background: var(--bad-bg); }
tr.pass td:first-child { color: var(--ok); font-weight: 600; }
tr.fail td:first-child { color: var(--bad); font-weight: 700; }
tr.warn td { background: var(--warn-bg); }
.charts { display: grid; grid-template-columns: repeat(auto-fit, minmax(520px, 1fr)); gap: 16px; }
figure.chart { margin: 0; background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; min-width: 0; }
figure.chart figcaption p { margin: 2px 0 8px; color: var(--muted); font-size: 12.5px; overflow-wrap: anywhere; }
.canvas-box { position: relative; height: 280px; }
p.no-data { height: 120px; display: flex; align-items: center; justify-content: center; text-align: center; margin: 0;
  color: var(--muted); background: var(--bg); border: 1px dashed var(--line); border-radius: 6px; padding: 0 16px; }
p.not-measured { color: var(--muted); font-size: 12.5px; margin: 8px 0 0; }
details { margin: 8px 0 16px; }
summary { cursor: pointer; color: #245ea8; }
footer { color: var(--muted); font-size: 12.5px; margin-top: 32px; border-top: 1px solid var(--line); padding-top: 12px; }
@media (max-width: 600px) { .charts { grid-template-columns: 1fr; } }
`
