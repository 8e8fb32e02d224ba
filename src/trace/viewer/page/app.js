/*
 * Starts the viewer: reads the model (embedded in a static export, fetched
 * from the local server otherwise), fills every view, and wires tabs,
 * search, keyboard and live updates.
 */
/* global V */
'use strict';

const VIEWS = ['timeline', 'sensitivity', 'prompts', 'state', 'servers', 'events'];
const LIVE_INTERVAL_MS = 1000;

function readJsonBlock(id) {
  const block = document.getElementById(id);
  return block ? JSON.parse(block.textContent) : undefined;
}

V.setQuery = function setQuery(text) {
  V.query = text.trim().toLowerCase();
  const input = V.byId('search');
  if (input.value !== text) input.value = text;
  for (const name of VIEWS) V.views[name].search?.();
};

function load(model) {
  V.model = model;
  V.bySeq = new Map(model.events.map((event) => [event.seq, event]));
  const seconds = ((model.endMs - model.startMs) / 1000).toFixed(2);
  V.byId('summary').textContent =
    `${model.name} · session ${model.sessionId ?? 'unknown'} · ${model.calls.length} calls · ` +
    `${model.events.length} events · ${seconds} s`;
  const notes = V.clear(V.byId('notes'));
  for (const note of model.notes) notes.append(V.el('div', { text: note }));
  for (const name of VIEWS) V.views[name].load();
}

function picker(config) {
  const traces = config.traces ?? [];
  if (traces.length < 2) return;
  const select = V.el('select', { id: 'trace-picker', 'aria-label': 'Trace' });
  for (const trace of traces) {
    select.append(
      V.el('option', {
        value: trace.href,
        text: trace.name,
        selected: trace.name === config.current,
      }),
    );
  }
  select.addEventListener('change', () => {
    location.href = select.value;
  });
  V.byId('summary').after(select);
}

function keyboard() {
  document.addEventListener('keydown', (event) => {
    const typing = event.target.matches('input, select, textarea');
    if (event.key === 'Escape') {
      if (typing) event.target.blur();
      return;
    }
    if (typing || event.ctrlKey || event.metaKey || event.altKey) return;
    const view = V.views[V.current];
    if (event.key === '/') {
      event.preventDefault();
      V.byId('search').focus();
    } else if (event.key === 'j' || event.key === 'k') {
      const step = event.key === 'j' ? 1 : -1;
      if (view.list) view.list().move(step);
      else if (view.move) view.move(step);
    } else if (/^[1-6]$/.test(event.key)) {
      V.show(VIEWS[Number(event.key) - 1]);
    }
  });
}

async function follow(version) {
  const params = new URLSearchParams(location.search);
  params.set('version', String(version));
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, LIVE_INTERVAL_MS));
    try {
      const response = await fetch(`model.json?${params}`, { cache: 'no-store' });
      if (response.status !== 200) continue;
      const body = await response.json();
      params.set('version', String(body.version));
      load(body.model);
    } catch {
      // The server may be restarting; try again at the next tick.
    }
  }
}

async function start() {
  performance.mark('trace-viewer:script');
  const config = readJsonBlock('viewer-config') ?? { mode: 'static' };
  for (const button of document.querySelectorAll('nav button')) {
    button.addEventListener('click', () => V.show(button.dataset.view));
  }
  V.byId('search').addEventListener('input', (event) => V.setQuery(event.target.value));
  for (const name of VIEWS) V.views[name].init?.();
  keyboard();
  picker(config);
  let version = 0;
  let model = readJsonBlock('trace-data');
  if (model === undefined) {
    const response = await fetch(`model.json${location.search}`, { cache: 'no-store' });
    if (!response.ok) throw new Error(`the trace could not be loaded (HTTP ${response.status})`);
    const body = await response.json();
    model = body.model;
    version = body.version;
  }
  V.show('timeline');
  load(model);
  requestAnimationFrame(() => {
    performance.measure('trace-viewer:ready', { start: 0, end: performance.now() });
    document.body.dataset.loadMs = performance.now().toFixed(0);
    document.body.dataset.ready = 'true';
  });
  if (config.live) {
    V.byId('live').textContent = '● live';
    void follow(version);
  }
}

start().catch((error) => {
  const notes = V.byId('notes');
  notes.textContent = `The viewer failed: ${error.message}`;
  document.body.dataset.ready = 'error';
});
