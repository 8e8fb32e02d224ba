/*
 * The timeline: every tool call as a bar on the run's time axis, filtered
 * by server and outcome, with the call's arguments, result and events on
 * selection.
 */
/* global V */
'use strict';

V.views.timeline = (function timeline() {
  const hidden = { servers: new Set(), outcomes: new Set() };
  let visible = [];
  let list;
  let selectedSeq;

  function filters() {
    const box = V.clear(V.byId('timeline-filters'));
    const servers = [...new Set(V.model.calls.map((call) => call.server ?? '(native)'))];
    box.append(V.el('span', { className: 'label', text: 'Servers' }));
    for (const server of servers) box.append(chip(hidden.servers, server, server));
    box.append(V.el('span', { className: 'label', text: ' Outcomes' }));
    for (const outcome of Object.keys(V.OUTCOME_LABELS)) {
      const count = V.model.calls.filter((call) => call.outcome === outcome).length;
      box.append(chip(hidden.outcomes, outcome, `${V.OUTCOME_LABELS[outcome]} (${count})`));
    }
  }

  function chip(set, value, label) {
    const button = V.el('button', {
      className: 'chip',
      type: 'button',
      'aria-pressed': String(!set.has(value)),
      'data-filter': value,
      text: label,
    });
    button.addEventListener('click', () => {
      if (set.has(value)) set.delete(value);
      else set.add(value);
      button.setAttribute('aria-pressed', String(!set.has(value)));
      apply();
    });
    return button;
  }

  function apply() {
    visible = V.model.calls.filter(
      (call) =>
        !hidden.servers.has(call.server ?? '(native)') &&
        !hidden.outcomes.has(call.outcome) &&
        V.matches(call.tool, call.server, call.reason, call.outcome, V.bySeq.get(call.seq)?.fields),
    );
    V.byId('timeline-count').textContent =
      `${visible.length} of ${V.model.calls.length} calls shown`;
    list.reset(visible.length);
    const index = visible.findIndex((call) => call.seq === selectedSeq);
    if (index >= 0) list.select(index);
  }

  /** The bars' axis: from the first call's start to the last call's end. */
  let axis = { from: 0, span: 1 };

  function measure() {
    let from = Infinity;
    let to = -Infinity;
    for (const call of V.model.calls) {
      from = Math.min(from, call.start);
      to = Math.max(to, call.start + call.durationMs);
    }
    axis = Number.isFinite(from) ? { from, span: Math.max(1, to - from) } : { from: 0, span: 1 };
  }

  function render(row, index) {
    const call = visible[index];
    const span = axis.span;
    const bar = V.el('span', { className: `bar ${call.outcome}` });
    bar.style.left = `${((call.start - axis.from) / span) * 100}%`;
    bar.style.width = `${(call.durationMs / span) * 100}%`;
    row.dataset.seq = String(call.seq);
    row.dataset.outcome = call.outcome;
    row.title = call.reason ?? call.tool;
    row.append(
      V.el('span', { className: 'time', text: V.offset(call.start) }),
      V.el('span', {}, V.badge(call.outcome)),
      V.el('span', { className: 'tool', text: call.tool }),
      V.el('span', { className: 'server', text: call.server ?? 'native' }),
      V.el('span', { className: 'track' }, bar),
      V.el('span', { className: 'duration', text: V.duration(call.durationMs) }),
    );
  }

  function detail(call) {
    const box = V.clear(V.byId('call-detail'));
    selectedSeq = call.seq;
    const event = V.bySeq.get(call.seq);
    const result = event?.fields.result ?? {};
    box.append(V.el('h2', { text: call.tool }), V.badge(call.outcome));
    if (call.reason !== undefined) {
      box.append(
        V.el('h3', { text: 'Reason' }),
        V.el('div', { id: 'call-reason', className: `reason ${call.outcome}`, text: call.reason }),
      );
    }
    box.append(
      V.el('h3', { text: 'Call' }),
      V.facts([
        ['server', call.server ?? 'native tool'],
        ['name on server', call.originalName],
        ['started', `${V.offset(call.start)} (${V.clock(call.start)})`],
        ['duration', V.duration(call.durationMs)],
        ['session level', call.sensitivity],
        ['call id', call.callId],
      ]),
      V.el('h3', { text: 'Arguments' }),
      V.json(event?.fields.params),
      V.el('h3', { text: 'Result' }),
    );
    if (result.withheld !== undefined) {
      box.append(
        V.el('p', {
          className: 'withheld',
          text: 'Left out: the session held private data when this call returned.',
        }),
      );
    } else {
      box.append(...V.images(result.value), V.json(result));
    }
    const related = call.related.map((seq) => V.bySeq.get(seq)).filter(Boolean);
    box.append(V.el('h3', { text: `Events of this call (${related.length})` }));
    const items = V.el('ul', { className: 'list' });
    for (const item of related) {
      items.append(
        V.el(
          'li',
          { onclick: () => V.views.events.reveal(item.seq) },
          V.el('strong', { text: item.type }),
          V.el('div', { className: 'sub', text: item.summary }),
        ),
      );
    }
    if (related.length === 0) items.append(V.el('li', { className: 'sub', text: 'none' }));
    box.append(items);
    const snapshot = V.model.snapshots.find((candidate) => candidate.callId === call.callId);
    if (snapshot !== undefined) {
      box.append(
        V.el('h3', { text: 'State' }),
        V.el('button', {
          className: 'linklike',
          type: 'button',
          text: 'Slices after this call',
          onclick: () => V.views.state.reveal(snapshot.seq),
        }),
      );
    }
  }

  return {
    init() {
      list = V.virtualList(V.byId('timeline-list'), {
        rowClass: 'row call-row',
        render,
        onSelect: (index) => detail(visible[index]),
      });
    },
    load() {
      measure();
      filters();
      apply();
      if (list.selected < 0) {
        V.clear(V.byId('call-detail')).append(
          V.el('p', { className: 'empty', text: 'Select a call (click, or j / k).' }),
        );
      }
    },
    search: apply,
    list: () => list,
    /** Shows the call whose ToolInvoked has `seq`, clearing filters that hide it. */
    reveal(seq) {
      hidden.servers.clear();
      hidden.outcomes.clear();
      V.setQuery('');
      selectedSeq = seq;
      V.show('timeline');
      filters();
      apply();
    },
  };
})();
