/*
 * The trace viewer's shared helpers. The page's files are concatenated, in
 * the order of `viewer-page.ts`, into one inline script; they share the
 * namespace `V`. Trace text is data: it reaches the page only through
 * `textContent` and attribute values, never as markup or code.
 */
/* exported V */
'use strict';

const V = {
  /** The model being shown; replaced on a live update. */
  model: undefined,
  /** Lower-case search text; '' shows everything. */
  query: '',
  /** Events by seq. */
  bySeq: new Map(),
  views: {},
};

/** An element with attributes (never `innerHTML`) and children (nodes or text). */
V.el = function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name === 'className') node.className = value;
    else if (name === 'text') node.textContent = value;
    else if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    node.append(typeof child === 'string' ? document.createTextNode(child) : child);
  }
  return node;
};

V.svg = function svg(tag, attributes) {
  const node = document.createElementNS('http://www.w3.org/2000/svg', tag);
  for (const [name, value] of Object.entries(attributes ?? {})) {
    if (name === 'text') node.textContent = value;
    else node.setAttribute(name, String(value));
  }
  return node;
};

V.clear = function clear(node) {
  while (node.firstChild) node.firstChild.remove();
  return node;
};

V.byId = function byId(id) {
  return document.getElementById(id);
};

/** Time since the trace began: `+1.234 s`. */
V.offset = function offset(ms) {
  const start = V.model ? V.model.startMs : 0;
  return `+${((ms - start) / 1000).toFixed(3)} s`;
};

V.duration = function duration(ms) {
  if (ms < 1) return `${ms.toFixed(2)} ms`;
  if (ms < 1000) return `${ms.toFixed(0)} ms`;
  return `${(ms / 1000).toFixed(2)} s`;
};

V.clock = function clock(ms) {
  const date = new Date(ms);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString().replace('T', ' ').slice(0, 23);
};

/** A `<pre>` of a value as indented JSON. */
V.json = function json(value) {
  return V.el('pre', { text: JSON.stringify(value, null, 2) ?? 'undefined' });
};

V.OUTCOME_LABELS = {
  success: 'success',
  refused: 'refused',
  'rolled-back': 'rolled back',
  'timed-out': 'timed out',
};

V.badge = function badge(outcome) {
  return V.el('span', {
    className: `badge ${outcome}`,
    text: V.OUTCOME_LABELS[outcome] ?? outcome,
  });
};

/** A definition list from [term, value] pairs; values are text or nodes. */
V.facts = function facts(pairs) {
  const list = V.el('dl');
  for (const [term, value] of pairs) {
    if (value === undefined || value === '') continue;
    list.append(V.el('dt', { text: term }), V.el('dd', {}, value));
  }
  return list;
};

/** Whether `text` (any value, as JSON) holds the current search. */
V.matches = function matches(...values) {
  if (V.query === '') return true;
  return values.some((value) => {
    if (value === undefined || value === null) return false;
    const text = typeof value === 'string' ? value : JSON.stringify(value);
    return text.toLowerCase().includes(V.query);
  });
};

const IMAGE_TYPES = new Set(['image/png', 'image/jpeg', 'image/gif', 'image/webp']);

/** Previews of MCP image content in a result value, when the data is plain base64. */
V.images = function images(value) {
  const content = value && Array.isArray(value.content) ? value.content : [];
  return content
    .filter(
      (part) =>
        part &&
        part.type === 'image' &&
        IMAGE_TYPES.has(part.mimeType) &&
        typeof part.data === 'string' &&
        /^[A-Za-z0-9+/]+={0,2}$/.test(part.data),
    )
    .map((part) =>
      V.el('img', {
        className: 'preview',
        alt: `${part.mimeType} from the result`,
        src: `data:${part.mimeType};base64,${part.data}`,
      }),
    );
};

/** Switches to a view by name (`timeline`, `sensitivity`, …). */
V.show = function show(name) {
  V.current = name;
  for (const button of document.querySelectorAll('nav button')) {
    button.setAttribute('aria-selected', String(button.dataset.view === name));
  }
  for (const section of document.querySelectorAll('.view')) {
    section.classList.toggle('active', section.id === `view-${name}`);
  }
  const view = V.views[name];
  if (view && view.shown) view.shown();
};
