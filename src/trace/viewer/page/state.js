/*
 * Slice state at a chosen point: the snapshots recorded after each call
 * hold only the slices that changed, so the state at a point is every
 * snapshot up to it, applied in order.
 */
/* global V */
'use strict';

V.views.state = (function state() {
  let selected = -1;

  function list() {
    const box = V.clear(V.byId('snapshot-list'));
    V.model.snapshots.forEach((snapshot, index) => {
      const changed = [...Object.keys(snapshot.slices), ...snapshot.withheld];
      box.append(
        V.el(
          'li',
          { 'data-index': index, onclick: () => select(index) },
          V.el('strong', { text: snapshot.label }),
          V.el('div', {
            className: 'sub',
            text: `${V.offset(snapshot.at)} · changed: ${changed.join(', ') || 'nothing'}`,
          }),
        ),
      );
    });
    if (V.model.snapshots.length === 0) {
      box.append(V.el('li', { className: 'sub', text: 'No slice snapshot in this trace.' }));
    }
  }

  function stateAt(index) {
    const slices = {};
    const withheld = new Set();
    for (let at = 0; at <= index; at += 1) {
      const snapshot = V.model.snapshots[at];
      if (snapshot.full) {
        for (const name of Object.keys(slices)) delete slices[name];
        withheld.clear();
      }
      for (const [name, value] of Object.entries(snapshot.slices)) {
        slices[name] = value;
        withheld.delete(name);
      }
      for (const name of snapshot.withheld) {
        delete slices[name];
        withheld.add(name);
      }
    }
    return { slices, withheld: [...withheld] };
  }

  function select(index) {
    const snapshot = V.model.snapshots[index];
    if (snapshot === undefined) return;
    selected = index;
    for (const item of document.querySelectorAll('#snapshot-list li[data-index]')) {
      item.setAttribute('aria-selected', String(item.dataset.index === String(index)));
    }
    const { slices, withheld } = stateAt(index);
    const box = V.clear(V.byId('state-detail'));
    box.append(
      V.el('h2', { text: `Slices ${snapshot.label}` }),
      V.facts([
        ['at', `${V.offset(snapshot.at)} (${V.clock(snapshot.at)})`],
        ['changed here', Object.keys(snapshot.slices).concat(snapshot.withheld).join(', ')],
      ]),
    );
    if (withheld.length > 0) {
      box.append(
        V.el('p', {
          className: 'withheld',
          text: `Left out (the session held private data): ${withheld.join(', ')}`,
        }),
      );
    }
    box.append(V.el('h3', { text: 'State' }), V.json(slices));
  }

  return {
    load() {
      list();
      select(selected < 0 ? V.model.snapshots.length - 1 : selected);
    },
    move(step) {
      select(Math.max(0, Math.min(V.model.snapshots.length - 1, selected + step)));
    },
    reveal(seq) {
      V.show('state');
      select(V.model.snapshots.findIndex((snapshot) => snapshot.seq === seq));
    },
  };
})();
