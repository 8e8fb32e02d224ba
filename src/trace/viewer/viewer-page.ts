/**
 * The viewer's one HTML document: a skeleton, the stylesheet and the script
 * of `page/` inlined, and a Content-Security-Policy that allows exactly
 * those two (by hash) and nothing else: no other script, no inline event
 * handler, no eval. The same document is served by the local server and
 * written by the static export (with the model embedded as JSON data).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { TraceModel } from '../trace-model.js';

/** The page's scripts, concatenated in this order (they share the namespace `V`). */
const SCRIPTS = [
  'core.js',
  'virtual-list.js',
  'timeline.js',
  'sensitivity.js',
  'prompts.js',
  'state.js',
  'servers.js',
  'events.js',
  'app.js',
];

/** What the page is told besides the model. */
export interface ViewerConfig {
  readonly mode: 'served' | 'static';
  /** Poll the server for a newer model. */
  readonly live: boolean;
  /** Other traces to switch to (a directory), with their links. */
  readonly traces: readonly { readonly name: string; readonly href: string }[];
  readonly current: string;
}

/** A document and the CSP header value that goes with it. */
export interface ViewerDocument {
  readonly html: string;
  /** For the HTTP header; it adds `frame-ancestors`, which a `<meta>` policy cannot carry. */
  readonly csp: string;
}

interface Assets {
  readonly script: string;
  readonly style: string;
  readonly scriptHash: string;
  readonly styleHash: string;
}

let assets: Assets | undefined;

/** The page's files, read once (from `src/` under tsx, from `dist/` once built). */
function loadAssets(): Assets {
  if (assets !== undefined) return assets;
  const read = (name: string): string =>
    readFileSync(new URL(`./page/${name}`, import.meta.url), 'utf8');
  const script = `(function () {\n${SCRIPTS.map(read).join('\n')}\n})();`;
  const style = read('viewer.css');
  assets = { script, style, scriptHash: sha256(script), styleHash: sha256(style) };
  return assets;
}

function sha256(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * The viewer document for `title`, with `model` embedded (the static
 * export) or fetched from `model.json` beside it (the server).
 */
export function viewerDocument(
  title: string,
  config: ViewerConfig,
  model?: TraceModel,
): ViewerDocument {
  const { script, style, scriptHash, styleHash } = loadAssets();
  const connect = config.mode === 'served' ? "'self'" : "'none'";
  const csp = [
    "default-src 'none'",
    `script-src ${scriptHash}`,
    `style-src ${styleHash}`,
    'img-src data:',
    `connect-src ${connect}`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const data =
    model === undefined
      ? ''
      : `<script type="application/json" id="trace-data">${jsonData(model)}</script>\n`;
  const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<meta http-equiv="Content-Security-Policy" content="${escapeHtml(csp)}">
<title>${escapeHtml(title)} · mcp-sections trace</title>
<style>${style}</style>
</head>
<body>
<header>
<h1>mcp-sections trace</h1>
<span id="summary">loading…</span>
<span id="live"></span>
<input id="search" type="search" placeholder="Search  ( / )" aria-label="Search the trace" autocomplete="off">
</header>
<nav role="tablist">
${NAV}
</nav>
<div id="notes" role="status"></div>
<main>
<section class="view" id="view-timeline">
<div class="filters" id="timeline-filters"></div>
<div class="sub" id="timeline-count"></div>
<div class="split"><div class="panel" id="timeline-list" aria-label="Tool calls"></div><aside class="panel detail" id="call-detail"></aside></div>
</section>
<section class="view" id="view-sensitivity">
<div class="panel chart-panel"><svg id="sensitivity-chart" xmlns="http://www.w3.org/2000/svg"></svg></div>
<div class="panel"><ol class="list" id="escalations"></ol></div>
</section>
<section class="view" id="view-prompts">
<div class="split"><div class="panel"><ol class="list" id="render-list"></ol></div><div class="panel detail" id="render-detail"></div></div>
</section>
<section class="view" id="view-state">
<div class="split"><div class="panel"><ol class="list" id="snapshot-list"></ol></div><div class="panel detail" id="state-detail"></div></div>
</section>
<section class="view" id="view-servers"><div class="panel" id="server-table"></div></section>
<section class="view" id="view-events">
<div class="sub" id="event-count"></div>
<div class="split"><div class="panel" id="event-list" aria-label="Events"></div><aside class="panel detail" id="event-detail"></aside></div>
</section>
</main>
<footer><kbd>j</kbd>/<kbd>k</kbd> next/previous · <kbd>/</kbd> search · <kbd>Esc</kbd> leave search · <kbd>1</kbd>–<kbd>6</kbd> views · read-only</footer>
<script type="application/json" id="viewer-config">${jsonData(config)}</script>
${data}<script>${script}</script>
</body>
</html>
`;
  return { html, csp: `${csp}; frame-ancestors 'none'` };
}

const NAV = [
  ['timeline', 'Timeline'],
  ['sensitivity', 'Sensitivity'],
  ['prompts', 'Prompts'],
  ['state', 'State'],
  ['servers', 'Servers'],
  ['events', 'Events'],
]
  .map(
    ([view, label], index) =>
      `<button type="button" role="tab" data-view="${view}" id="tab-${view}">${label}<kbd>${index + 1}</kbd></button>`,
  )
  .join('\n');

/**
 * JSON that is safe inside a `<script type="application/json">` block: no
 * `<` (so no `</script>` or `<!--`), and no line separators.
 */
export function jsonData(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Text safe in HTML content and in a double-quoted attribute. */
export function escapeHtml(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}
