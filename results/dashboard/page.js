/**
 * The dashboard page's markup and style. The figures and charts are filled in by its script
 * (page-script.js) from the stream; the headline figures are text in `data-metric` elements so
 * people and scripts can read them. Scripts load only from this server (the policy below).
 */
import { STYLE } from '../report/style.js'
import { escapeHtml } from '../report/html.js'

/** The page's content security policy: its own scripts, styles and stream, nothing else. */
export const PAGE_CSP = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; img-src 'self' data:; base-uri 'none'; form-action 'none'"

/** The report's style, and the dashboard's own parts. */
export const PAGE_STYLE = `${STYLE}
.metrics { display: grid; grid-template-columns: repeat(auto-fill, minmax(130px, 1fr)); gap: 10px; margin: 16px 0; }
.metric { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; }
.metric b { display: block; font-size: 22px; font-variant-numeric: tabular-nums; }
.metric span { color: var(--muted); font-size: 12px; }
.controls { display: flex; flex-wrap: wrap; gap: 10px; align-items: center; background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; }
.controls input { width: 90px; }
.controls .why { color: var(--bad); }
.controls[data-token="no"] button { opacity: 0.5; }
.live-state { font-weight: 600; }
.thresholds span { margin-right: 12px; font-weight: 600; }
.thresholds .pass { color: var(--ok); }
.thresholds .fail { color: var(--bad); }
.log { max-height: 220px; overflow: auto; font: 12px/1.4 ui-monospace, monospace; background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 8px; white-space: pre-wrap; }
.ended { background: var(--ok-bg); border: 1px solid var(--line); border-radius: 8px; padding: 10px 12px; margin: 12px 0; }
[hidden] { display: none !important; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(520px, 1fr)); gap: 16px; }
`

/** Headline figures: data-metric name, label. */
export const HEADLINES = Object.freeze([
  ['connected', 'connected'], ['simulators', 'simulators'], ['connects', 'connects/s'], ['errors', 'connect errors'], ['disconnects', 'disconnects'],
  ['messages', 'messages'], ['received', 'received'], ['missing', 'missing'],
  ['p50', 'delay p50 (ms)'], ['p99', 'delay p99 (ms)'], ['max', 'delay max (ms)'],
  ['emits-sent', 'emits sent'], ['emits-acked', 'emits acked'], ['ack-p99', 'ack p99 (ms)'],
  ['server-cpu', 'server CPU %'], ['saturated', 'saturated simulators']
])

/**
 * The page (the same for every run: what it shows comes through the stream).
 * @param {{ title: string }} options
 */
export function dashboardPage ({ title }) {
  const metrics = HEADLINES.map(([name, label]) => `<div class="metric"><b data-metric="${name}">–</b><span>${escapeHtml(label)}</span></div>`).join('')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)} — live</title>
<link rel="stylesheet" href="/assets/page.css">
</head>
<body>
<header class="top"><div class="inner"><div>
<h1 id="title">${escapeHtml(title)}</h1>
<p class="sub"><span class="live-state" id="live-state">connecting…</span> · <span id="run-facts"></span></p>
</div></div></header>
<main>
<div class="metrics">${metrics}</div>
<div class="controls" id="controls" data-token="no">
<button type="button" data-action="stop">Stop the run</button>
<label>clients <input id="clients" type="number" min="0" step="1"></label><button type="button" data-action="clients">Set clients</button>
<label>emit rate <input id="emit-rate" type="text" placeholder="5/s"></label><button type="button" data-action="emit-rate">Set emit rate</button>
<button type="button" data-action="stop-after-step">Stop after this step</button>
<span id="action-result" role="status"></span>
</div>
<p id="thresholds" class="thresholds" hidden></p>
<div id="ended" class="ended" hidden></div>
<h2>Breakdowns</h2>
<p><label>namespace, room, event <select id="row-select"></select></label> <label>node <select id="node-select"><option value="">all nodes</option></select></label></p>
<section class="charts" id="charts"></section>
<h2>Run log</h2>
<div class="log" id="log"></div>
</main>
<script src="/assets/chart.js"></script>
<script type="module" src="/assets/page.js"></script>
</body>
</html>
`
}
