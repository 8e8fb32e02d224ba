/*
 * A list that keeps only the rows in sight in the DOM: a trace of 10,000
 * calls scrolls as fast as one of ten. Rows have one fixed height.
 */
/* global V */
'use strict';

const ROW_HEIGHT = 28;
const OVERSCAN = 8;

/**
 * `options.render(row, index)` fills a row element; `options.onSelect(index)`
 * runs when a row is chosen by click or by keyboard.
 */
V.virtualList = function virtualList(container, options) {
  const spacer = V.el('div', { className: 'spacer' });
  container.classList.add('vlist');
  container.tabIndex = 0;
  container.append(spacer);
  const rows = new Map();
  let count = 0;
  let selected = -1;
  let frame = 0;

  function draw() {
    frame = 0;
    const top = container.scrollTop;
    const height = container.clientHeight || 600;
    const first = Math.max(0, Math.floor(top / ROW_HEIGHT) - OVERSCAN);
    const last = Math.min(count - 1, Math.ceil((top + height) / ROW_HEIGHT) + OVERSCAN);
    for (const [index, row] of rows) {
      if (index < first || index > last) {
        row.remove();
        rows.delete(index);
      }
    }
    for (let index = first; index <= last; index += 1) {
      let row = rows.get(index);
      if (row === undefined) {
        row = V.el('div', { className: options.rowClass });
        row.style.top = `${index * ROW_HEIGHT}px`;
        row.dataset.index = String(index);
        options.render(row, index);
        rows.set(index, row);
        spacer.append(row);
      }
      row.setAttribute('aria-selected', String(index === selected));
    }
  }

  function schedule() {
    if (frame === 0) frame = requestAnimationFrame(draw);
  }

  container.addEventListener('scroll', schedule);
  container.addEventListener('click', (event) => {
    const row = event.target.closest('.row');
    if (row && spacer.contains(row)) list.select(Number(row.dataset.index));
  });

  const list = {
    /** Sets the number of rows and draws them again from scratch. */
    reset(newCount) {
      count = newCount;
      selected = Math.min(selected, count - 1);
      spacer.style.height = `${count * ROW_HEIGHT}px`;
      for (const row of rows.values()) row.remove();
      rows.clear();
      draw();
    },
    select(index) {
      if (count === 0) return;
      selected = Math.max(0, Math.min(count - 1, index));
      const top = selected * ROW_HEIGHT;
      if (top < container.scrollTop) container.scrollTop = top;
      else if (top + ROW_HEIGHT > container.scrollTop + container.clientHeight) {
        container.scrollTop = top + ROW_HEIGHT - container.clientHeight;
      }
      draw();
      options.onSelect(selected);
    },
    move(step) {
      list.select(selected < 0 ? 0 : selected + step);
    },
    get selected() {
      return selected;
    },
    redraw: schedule,
  };
  return list;
};
