/* Every event of the trace, in order, with its fields on selection. */
/* global V */
'use strict';

V.views.events = (function events() {
  let visible = [];
  let list;
  let selectedSeq;

  function apply() {
    visible = V.model.events.filter((event) => V.matches(event.type, event.summary, event.fields));
    V.byId('event-count').textContent =
      `${visible.length} of ${V.model.events.length} events shown`;
    list.reset(visible.length);
    const index = visible.findIndex((event) => event.seq === selectedSeq);
    if (index >= 0) list.select(index);
  }

  function render(row, index) {
    const event = visible[index];
    row.dataset.seq = String(event.seq);
    row.append(
      V.el('span', { className: 'time', text: V.offset(event.at) }),
      V.el('span', { className: 'type', text: event.type }),
      V.el('span', { className: 'sub', text: event.summary }),
    );
  }

  function detail(event) {
    selectedSeq = event.seq;
    const box = V.clear(V.byId('event-detail'));
    box.append(
      V.el('h2', { text: event.type }),
      V.facts([
        ['event', `#${event.seq}`],
        ['at', `${V.offset(event.at)} (${V.clock(event.at)})`],
        ['server', event.server],
        ['call id', event.callId],
      ]),
    );
    const call =
      event.callId && V.model.calls.find((candidate) => candidate.callId === event.callId);
    if (call) {
      box.append(
        V.el('button', {
          className: 'linklike',
          type: 'button',
          text: `Open the call ${call.tool}`,
          onclick: () => V.views.timeline.reveal(call.seq),
        }),
      );
    }
    box.append(V.el('h3', { text: 'Fields' }), V.json(event.fields));
  }

  return {
    init() {
      list = V.virtualList(V.byId('event-list'), {
        rowClass: 'row event-row',
        render,
        onSelect: (index) => detail(visible[index]),
      });
    },
    load: apply,
    search: apply,
    list: () => list,
    reveal(seq) {
      V.setQuery('');
      selectedSeq = seq;
      V.show('events');
      apply();
    },
  };
})();
