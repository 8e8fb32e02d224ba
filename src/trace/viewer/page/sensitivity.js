/*
 * The session's sensitivity over time: a step chart (SVG) with a point at
 * every rise, the calls as ticks below it, and the list of rises with the
 * event and the call that raised the level.
 */
/* global V */
'use strict';

V.views.sensitivity = (function sensitivity() {
  const LEVELS = ['public', 'internal', 'confidential', 'secret'];
  const WIDTH = 1000;
  const HEIGHT = 280;
  const LEFT = 110;
  const RIGHT = 30;
  const TOP = 20;
  const BOTTOM = 60;

  function x(ms) {
    const span = Math.max(1, V.model.endMs - V.model.startMs);
    return LEFT + ((ms - V.model.startMs) / span) * (WIDTH - LEFT - RIGHT);
  }

  function y(level) {
    const rank = Math.max(0, LEVELS.indexOf(level));
    return TOP + (3 - rank) * ((HEIGHT - TOP - BOTTOM) / 3);
  }

  function chart() {
    const root = V.clear(V.byId('sensitivity-chart'));
    root.setAttribute('viewBox', `0 0 ${WIDTH} ${HEIGHT}`);
    root.setAttribute('role', 'img');
    const { initial, steps } = V.model.sensitivity;
    const final = steps.length === 0 ? initial : steps[steps.length - 1].level;
    root.setAttribute(
      'aria-label',
      `Session sensitivity from ${initial} to ${final}, ${steps.length} rise(s)`,
    );
    for (const level of LEVELS) {
      root.append(
        V.svg('line', {
          class: 'grid-line',
          x1: LEFT,
          x2: WIDTH - RIGHT,
          y1: y(level),
          y2: y(level),
        }),
        V.svg('text', { class: 'axis-label', x: 8, y: y(level) + 4, text: level }),
      );
    }
    let path = `M ${x(V.model.startMs)} ${y(initial)}`;
    for (const step of steps) path += ` H ${x(step.at)} V ${y(step.level)}`;
    path += ` H ${x(V.model.endMs)}`;
    root.append(V.svg('path', { class: 'level-line', d: path }));
    const base = HEIGHT - BOTTOM + 18;
    for (const call of V.model.calls) {
      const at = x(call.start);
      root.append(
        V.svg('line', { class: `tick ${call.outcome}`, x1: at, x2: at, y1: base, y2: base + 12 }),
      );
    }
    root.append(
      V.svg('text', { class: 'axis-label', x: 8, y: base + 11, text: 'calls' }),
      V.svg('text', {
        class: 'axis-label',
        x: LEFT,
        y: HEIGHT - 6,
        text: V.offset(V.model.startMs),
      }),
      V.svg('text', {
        class: 'axis-label',
        x: WIDTH - RIGHT,
        y: HEIGHT - 6,
        'text-anchor': 'end',
        text: V.offset(V.model.endMs),
      }),
    );
    steps.forEach((step, index) => {
      const point = V.svg('circle', {
        class: 'point',
        cx: x(step.at),
        cy: y(step.level),
        r: 7,
        'data-step': index,
        tabindex: 0,
      });
      point.append(V.svg('title', { text: `${step.previous} → ${step.level}: ${step.dataset}` }));
      point.addEventListener('click', () => select(index));
      root.append(
        point,
        V.svg('text', {
          class: 'point-label',
          x: x(step.at) + 10,
          y: y(step.level) - 10,
          text: step.dataset,
        }),
      );
    });
  }

  function rises() {
    const box = V.clear(V.byId('escalations'));
    const { initial, steps } = V.model.sensitivity;
    box.append(
      V.el(
        'li',
        {},
        V.el('strong', { text: `Started at ${initial}` }),
        V.el('div', {
          className: 'sub',
          text: V.clock(V.model.startMs),
        }),
      ),
    );
    steps.forEach((step, index) => {
      const call = V.model.calls.find((candidate) => candidate.seq === step.callSeq);
      const item = V.el(
        'li',
        { 'data-step': index, onclick: () => select(index) },
        V.el('strong', { text: `${step.previous} → ${step.level}` }),
        ` at ${V.offset(step.at)}: dataset `,
        V.el('code', { text: step.dataset }),
        V.el('div', {
          className: 'sub',
          text: `SensitivityEscalated (event #${step.seq})${call ? ` during ${call.tool}` : ''}`,
        }),
      );
      if (call !== undefined) {
        item.append(
          V.el('button', {
            className: 'linklike',
            type: 'button',
            text: `Open the call ${call.tool}`,
            onclick: (event) => {
              event.stopPropagation();
              V.views.timeline.reveal(call.seq);
            },
          }),
        );
      }
      box.append(item);
    });
    if (steps.length === 0) {
      box.append(V.el('li', { className: 'sub', text: 'The level never rose in this trace.' }));
    }
  }

  function select(index) {
    for (const item of document.querySelectorAll('#escalations li[data-step]')) {
      item.setAttribute('aria-selected', String(item.dataset.step === String(index)));
    }
  }

  return {
    load() {
      chart();
      rises();
    },
  };
})();
