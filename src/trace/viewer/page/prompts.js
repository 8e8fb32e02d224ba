/*
 * The rendered prompts: each render's text, and what changed since the
 * previous render of the same prompt.
 */
/* global V */
'use strict';

V.views.prompts = (function prompts() {
  let selected = -1;
  let mode = 'diff';

  function list() {
    const box = V.clear(V.byId('render-list'));
    V.model.renders.forEach((render, index) => {
      const changes = render.diff ? render.diff.filter((line) => line[0] !== ' ').length : 0;
      const note =
        render.previousSeq === undefined
          ? 'first render'
          : render.diff
            ? `${changes} line(s) changed`
            : 'unchanged';
      box.append(
        V.el(
          'li',
          { 'data-index': index, onclick: () => select(index) },
          V.el('strong', { text: `#${index + 1} ${render.prompt}` }),
          V.el('div', {
            className: 'sub',
            text: `${V.offset(render.at)} · ${render.toolNames.length} tools · ${note}`,
          }),
        ),
      );
    });
    if (V.model.renders.length === 0) {
      box.append(V.el('li', { className: 'sub', text: 'No PromptRendered event in this trace.' }));
    }
  }

  function select(index) {
    const render = V.model.renders[index];
    if (render === undefined) return;
    selected = index;
    for (const item of document.querySelectorAll('#render-list li[data-index]')) {
      item.setAttribute('aria-selected', String(item.dataset.index === String(index)));
    }
    const box = V.clear(V.byId('render-detail'));
    const toggle = V.el('div', { className: 'toggle' });
    for (const [value, label] of [
      ['diff', 'Changes'],
      ['text', 'Full text'],
    ]) {
      toggle.append(
        V.el('button', {
          className: 'chip',
          type: 'button',
          'aria-pressed': String(mode === value),
          text: label,
          onclick: () => {
            mode = value;
            select(selected);
          },
        }),
      );
    }
    box.append(V.el('h2', { text: `${render.prompt} at ${V.offset(render.at)}` }), toggle);
    if (mode === 'diff' && render.diff) {
      const pre = V.el('pre', { className: 'diff', id: 'render-diff' });
      for (const line of render.diff) {
        const kind = line[0] === '+' ? 'added' : line[0] === '-' ? 'removed' : 'kept';
        pre.append(V.el('span', { className: kind, text: line }));
      }
      box.append(pre);
    } else {
      if (mode === 'diff') {
        box.append(
          V.el('p', {
            className: 'sub',
            text:
              render.previousSeq === undefined
                ? 'The first render of this prompt: its full text.'
                : 'The same text as the previous render of this prompt.',
          }),
        );
      }
      box.append(V.el('pre', { id: 'render-text', text: render.text }));
    }
    box.append(
      V.el('h3', { text: `Tools offered (${render.toolNames.length})` }),
      V.el('pre', { text: render.toolNames.join('\n') }),
    );
  }

  return {
    load() {
      list();
      select(selected < 0 ? V.model.renders.length - 1 : selected);
    },
    move(step) {
      select(Math.max(0, Math.min(V.model.renders.length - 1, selected + step)));
    },
  };
})();
