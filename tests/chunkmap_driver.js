// Drives the chunk map as a user would (mouse events on the bars, the section list, keys)
// and writes what it saw, as JSON, into a pre element with id "result". The Python test
// puts the [[row, chunk], ...] to pin in place of the word in capitals below.
(() => {
  const res = {};
  const fire = (el, type, x, y) => el.dispatchEvent(new MouseEvent(type,
    {bubbles: true, cancelable: true, clientX: x, clientY: y, button: 0, view: window}));
  const click = (el) => {
    const r = el.getBoundingClientRect();
    const x = r.left + r.width / 2, y = r.top + r.height / 2;
    fire(el, 'mousedown', x, y); fire(el, 'mouseup', x, y); fire(el, 'click', x, y);
  };
  const view = () => { const v = document.getElementById('viewinfo').dataset; return [+v.lo, +v.hi]; };
  const key = (k) => document.dispatchEvent(new KeyboardEvent('keydown', {key: k, bubbles: true}));
  try {
    res.ready = document.body.dataset.ready;
    res.legend = [...document.querySelectorAll('#legend li[data-kind]')].map((li) => li.dataset.kind);
    res.counts = [...document.querySelectorAll('.count')].map((c) => [c.dataset.expected, c.dataset.rendered]);
    res.bands = [...document.querySelectorAll('.band')].map((b) => b.textContent);
    res.ticks = document.querySelectorAll('#axis .tl').length;
    const pins = [];
    for (const [row, chunk] of PINS) {
      click(document.querySelector(`.track[data-row-index="${row}"] .seg[data-chunk="${chunk}"]`));
      pins.push({
        id: document.body.dataset.pinned,
        detail: document.getElementById('detailbody').textContent,
        bars: document.querySelectorAll('.track .seg.pin').length,
        text: [...document.querySelectorAll('#text .pin')].map((e) => e.textContent).join(''),
        tab: document.querySelector('#rowtabs .on').textContent,
      });
    }
    res.pins = pins;
    const track = document.querySelector('.track[data-row-index="0"]');
    const r = track.getBoundingClientRect(), y = r.top + r.height / 2;
    fire(track, 'mousedown', r.left + r.width * 0.25, y);
    fire(track, 'mousemove', r.left + r.width * 0.5, y);
    fire(track, 'mouseup', r.left + r.width * 0.75, y);
    fire(track, 'click', r.left + r.width * 0.75, y);
    res.dragged = view();
    res.pinnedAfterDrag = document.body.dataset.pinned || null;
    [...document.querySelectorAll('#seclist li')].find((l) => l.textContent === 'Riesgos').click();
    res.section = view();
    res.textShown = document.getElementById('text').textContent;
    key('Escape');
    res.afterEscape = document.body.dataset.pinned || null;
    key('Escape');
    res.reset = view();
    res.imgs = document.querySelectorAll('img').length;
    res.scripts = document.querySelectorAll('script').length;
  } catch (e) {
    res.exception = String(e && e.stack || e);
  }
  res.errors = window.__errors;
  const pre = document.createElement('pre');
  pre.id = 'result';
  pre.textContent = JSON.stringify(res);
  document.body.appendChild(pre);
})();
