// The chunk map's script: draws the rows, axis, sections and text from #chunkmap-data.
// Document text reaches the page only through textContent and attribute setters.
(() => {
  'use strict';
  const D = JSON.parse(document.getElementById('chunkmap-data').textContent);
  const $ = (id) => document.getElementById(id);
  const MIN_SPAN = 20;
  const view = { lo: D.lo, hi: D.hi };
  const state = { pinned: null, textRow: 0, hover: [], drag: null, suppressClick: false };
  let barEls = [];
  let textEls = new Map();

  const fmt = (n) => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
  const short = (n) => n >= 1e6 ? `${+(n / 1e6).toFixed(2)}M` : n >= 1e3 ? `${+(n / 1e3).toFixed(1)}k` : String(n);

  // Offsets are Python code points; JS strings count characters outside the BMP twice.
  function u16(cp) {
    const r = cp - D.lo;
    let a = 0;
    let b = D.astral.length;
    while (a < b) {
      const m = (a + b) >> 1;
      if (D.astral[m] < r) a = m + 1; else b = m;
    }
    return r + a;
  }
  const slice = (s, e) => D.text.slice(u16(s), u16(e));
  const pct = (x) => (100 * (x - view.lo)) / (view.hi - view.lo);
  const place = (el, a, b) => {
    el.style.left = `${pct(a).toFixed(4)}%`;
    el.style.width = `${(pct(b) - pct(a)).toFixed(4)}%`;
  };
  const make = (tag, cls, text) => {
    const el = document.createElement(tag);
    if (cls) el.className = cls;
    if (text !== undefined) el.textContent = text;
    return el;
  };
  const push = (map, k, v) => { if (!map.has(k)) map.set(k, []); map.get(k).push(v); };
  const item = (r, i) => D.rows[r].items[i];
  const unitOf = (r) => (D.rows[r].unit === 'passages' ? 'passage' : 'chunk');

  // The range [lo, hi) cut at every span edge of row r: [a, b, chunks covering it].
  function segments(r, lo, hi) {
    const ev = new Map([[lo, []], [hi, []]]);
    D.rows[r].items.forEach((it, i) => {
      for (const [s, e] of it.spans) {
        if (e <= lo || s >= hi) continue;
        push(ev, Math.max(s, lo), [1, i]);
        push(ev, Math.min(e, hi), [-1, i]);
      }
    });
    const cuts = [...ev.keys()].sort((x, y) => x - y);
    const active = new Map();
    const out = [];
    for (let k = 0; k + 1 < cuts.length; k++) {
      for (const [d, i] of ev.get(cuts[k])) {
        const n = (active.get(i) || 0) + d;
        if (n) active.set(i, n); else active.delete(i);
      }
      out.push([cuts[k], cuts[k + 1], [...active.keys()].sort((x, y) => x - y)]);
    }
    return out;
  }

  function drawTrack(track) {
    const r = +track.dataset.rowIndex;
    const frag = document.createDocumentFragment();
    const map = new Map();
    D.rows[r].items.forEach((it, i) => {
      for (const [s, e] of it.spans) {
        if (e <= view.lo || s >= view.hi) continue;
        const el = make('div', `seg k-${it.kind} p${i % 2}`);
        el.dataset.row = r;
        el.dataset.chunk = i;
        place(el, Math.max(s, view.lo), Math.min(e, view.hi));
        frag.appendChild(el);
        push(map, i, el);
      }
    });
    for (const [a, b, cs] of segments(r, view.lo, view.hi)) {
      if (cs.length < 2) continue;
      const el = make('div', 'ovl');
      place(el, a, b);
      frag.appendChild(el);
    }
    for (const s of D.sections) {
      if (s.start <= view.lo || s.start >= view.hi) continue;
      const el = make('div', `secline r${s.rank}`);
      el.style.left = `${pct(s.start).toFixed(4)}%`;
      frag.appendChild(el);
    }
    track.replaceChildren(frag);
    barEls[r] = map;
    if (view.lo === D.lo && view.hi === D.hi) {
      track.parentElement.querySelector('.count').dataset.rendered = String(map.size);
    }
  }

  function niceStep(span, px) {
    const raw = span / Math.max(px / 80, 1);
    const p = 10 ** Math.floor(Math.log10(raw));
    return [1, 2, 5, 10].map((m) => m * p).find((s) => s >= raw);
  }

  function drawAxis() {
    const axis = $('axis');
    const step = niceStep(view.hi - view.lo, axis.clientWidth || 1000);
    const frag = document.createDocumentFragment();
    const minor = step / 5;
    for (let x = Math.ceil(view.lo / minor) * minor; x <= view.hi; x += minor) {
      const major = Math.abs(x / step - Math.round(x / step)) < 1e-9;
      const t = make('div', major ? 'tick' : 'tick minor');
      t.style.left = `${pct(x)}%`;
      frag.appendChild(t);
      if (major) {
        const l = make('div', 'tl', short(Math.round(x)));
        l.style.left = `${pct(x)}%`;
        if (pct(x) < 2) l.style.transform = 'none'; // the first label stays inside the axis
        frag.appendChild(l);
      }
    }
    axis.replaceChildren(frag);
  }

  function drawPages() {
    const lane = $('pagelane');
    if (!D.pages.length) { lane.hidden = true; return; }
    const axis = $('pageaxis');
    const px = axis.clientWidth || 1000;
    const frag = document.createDocumentFragment();
    const shown = D.pages.filter(([, s, e]) => e > view.lo && s < view.hi);
    const step = [1, 2, 5, 10, 20, 50, 100, 200, 500].find((k) => (px * k) / shown.length >= 34) || 1000;
    let lastTick = -1e9;
    let lastLabel = -1e9;
    for (const [n, s, e] of shown) {
      const x = (pct(Math.max(s, view.lo)) * px) / 100;
      if (x - lastTick >= 3) {
        const t = make('div', 'tick');
        t.style.left = `${x}px`;
        frag.appendChild(t);
        lastTick = x;
      }
      if ((n % step === 0 || n === shown[0][0]) && x - lastLabel >= 28) {
        const l = make('div', 'tl', String(n));
        l.style.left = `${x + 6}px`;
        l.title = `page ${n}: characters ${fmt(s)}–${fmt(e)} (click to zoom)`;
        l.dataset.zoom = `${s}:${e}`;
        frag.appendChild(l);
        lastLabel = x;
      }
    }
    axis.replaceChildren(frag);
  }

  function drawSections() {
    for (const rank of [1, 2]) {
      const strip = $(`secs${rank}`);
      const frag = document.createDocumentFragment();
      let k = 0;
      for (const s of D.sections) {
        if (s.rank !== rank) continue;
        k += 1;
        if (s.end <= view.lo || s.start >= view.hi) continue;
        const el = make('div', `band b${k % 2}`, s.title);
        place(el, Math.max(s.start, view.lo), Math.min(s.end, view.hi));
        el.title = `${s.path || s.title}\ncharacters ${fmt(s.start)}–${fmt(s.end)} (click to zoom)`;
        el.dataset.zoom = `${s.start}:${s.end}`;
        frag.appendChild(el);
      }
      strip.replaceChildren(frag);
      strip.parentElement.hidden = !D.sections.some((s) => s.rank === rank);
    }
  }

  function drawText() {
    const r = state.textRow;
    const frag = document.createDocumentFragment();
    const started = new Set();
    textEls = new Map();
    for (const [a, b, cs] of segments(r, view.lo, view.hi)) {
      const el = make('span', 'gap', slice(a, b));
      if (cs.length) {
        const i = cs[0];
        el.className = `k-${item(r, i).kind} p${i % 2}${cs.length > 1 ? ' ov' : ''}${started.has(i) ? '' : ' start'}`;
        el.dataset.row = r;
        el.dataset.chunk = i;
        started.add(i);
        for (const j of cs) push(textEls, j, el);
      }
      frag.appendChild(el);
    }
    $('text').replaceChildren(frag);
    for (const b of $('rowtabs').children) b.classList.toggle('on', +b.dataset.row === r);
    $('textinfo').textContent = `characters ${fmt(view.lo)}–${fmt(view.hi)} (the zoomed range)`;
  }

  function elsOf(r, i) {
    return [...(barEls[r]?.get(i) || []), ...(r === state.textRow ? textEls.get(i) || [] : [])];
  }

  function markPinned() {
    for (const el of document.querySelectorAll('.pin')) el.classList.remove('pin');
    if (state.pinned) for (const el of elsOf(...state.pinned)) el.classList.add('pin');
  }

  function drawAll() {
    document.querySelectorAll('.track').forEach(drawTrack);
    drawAxis();
    drawPages();
    drawSections();
    drawText();
    markPinned();
    const info = $('viewinfo');
    info.dataset.lo = view.lo;
    info.dataset.hi = view.hi;
    const share = (100 * (view.hi - view.lo)) / (D.hi - D.lo);
    info.textContent = `Showing characters ${fmt(view.lo)}–${fmt(view.hi)} (${share.toFixed(share < 10 ? 1 : 0)}% of the map)`;
    for (const li of $('seclist').children) {
      li.classList.toggle('cur', li.dataset.zoom === `${view.lo}:${view.hi}`);
    }
  }

  function zoom(a, b) {
    a = Math.max(D.lo, Math.round(a));
    b = Math.min(D.hi, Math.round(b));
    if (b - a < MIN_SPAN) {
      const mid = (a + b) / 2;
      a = Math.max(D.lo, Math.round(mid - MIN_SPAN / 2));
      b = Math.min(D.hi, a + MIN_SPAN);
    }
    view.lo = a;
    view.hi = b;
    drawAll();
  }
  const zoomTo = (spec) => zoom(...spec.split(':').map(Number));

  function ensureVisible(it) {
    const s = Math.min(...it.spans.map((p) => p[0]));
    const e = Math.max(...it.spans.map((p) => p[1]));
    if (s >= view.lo && e <= view.hi) return false;
    const w = Math.max(view.hi - view.lo, e - s);
    const a = Math.max(D.lo, Math.min(Math.round((s + e - w) / 2), D.hi - w));
    zoom(a, a + w);
    return true;
  }

  function pin(r, i) {
    state.pinned = [r, i];
    ensureVisible(item(r, i));
    if (state.textRow !== r) {
      state.textRow = r;
      drawText();
    }
    markPinned();
    showDetails(r, i);
    const first = textEls.get(i)?.[0];
    if (first) $('text').scrollTop = Math.max(first.offsetTop - 40, 0);
    document.body.dataset.pinned = item(r, i).id;
  }

  function unpin() {
    state.pinned = null;
    markPinned();
    delete document.body.dataset.pinned;
    $('detailbody').replaceChildren(make('p', 'muted', 'Nothing pinned. Click a chunk to pin it.'));
  }

  function button(label, onclick) {
    const b = make('button', '', label);
    b.type = 'button';
    b.addEventListener('click', onclick);
    return b;
  }

  function detailRows(r, it) {
    const size = it.spans.reduce((n, [s, e]) => n + e - s, 0);
    const spans = it.spans.map(([s, e]) => `${fmt(s)}–${fmt(e)}`).join(', ');
    const rows = [
      ['row', D.rows[r].name],
      ['id', it.id],
      [D.rows[r].unit === 'passages' ? 'type' : 'kind', D.rows[r].unit === 'passages' ? it.header || '(none)' : it.kind],
      ['spans', `${spans} (${it.spans.length} span${it.spans.length > 1 ? 's' : ''})`],
      ['pages', it.pages.length ? it.pages.join(', ') : '—'],
      ['section', it.section || '(no section)'],
    ];
    if (D.rows[r].unit !== 'passages') rows.push(['header', it.header || '(none)']);
    const chars = it.chars === null ? `${fmt(size)} in the document` : `${fmt(size)} in the document, ${fmt(it.chars)} indexed (header and joined spans)`;
    rows.push(['characters', chars]);
    return rows;
  }

  function showDetails(r, i) {
    const it = item(r, i);
    const dl = make('dl');
    for (const [k, v] of detailRows(r, it)) {
      dl.append(make('dt', '', k), make('dd', '', v));
    }
    const n = D.rows[r].items.length;
    const nav = make('div', 'nav');
    nav.append(
      button('◀ previous', () => i > 0 && pin(r, i - 1)),
      button('next ▶', () => i + 1 < n && pin(r, i + 1)),
      button(`zoom to ${unitOf(r)}`, () => {
        zoom(Math.min(...it.spans.map((p) => p[0])), Math.max(...it.spans.map((p) => p[1])));
        pin(r, i);
      }),
      button('unpin', unpin),
    );
    const head = make('p', '', `${D.rows[r].name}: ${unitOf(r)} ${i + 1} of ${fmt(n)}`);
    $('detailbody').replaceChildren(head, dl, nav);
  }

  function hover(target, ev) {
    for (const el of state.hover) el.classList.remove('hl');
    state.hover = [];
    const tip = $('tip');
    const hit = target && target.closest ? target.closest('[data-chunk]') : null;
    if (!hit) { tip.hidden = true; return; }
    const r = +hit.dataset.row;
    const i = +hit.dataset.chunk;
    const it = item(r, i);
    state.hover = elsOf(r, i);
    for (const el of state.hover) el.classList.add('hl');
    const size = it.spans.reduce((n, [s, e]) => n + e - s, 0);
    tip.textContent = `${D.rows[r].name} · ${it.id}\n${it.kind} · ${it.section || '(no section)'}\n${fmt(size)} characters · click to pin`;
    tip.hidden = false;
    tip.style.left = `${Math.min(ev.clientX + 14, window.innerWidth - 430)}px`;
    tip.style.top = `${ev.clientY + 16}px`;
  }

  function offsetAt(x) {
    const rect = document.querySelector('.track, .axis').getBoundingClientRect();
    const f = Math.min(Math.max((x - rect.left) / rect.width, 0), 1);
    return { off: view.lo + f * (view.hi - view.lo), x: Math.min(Math.max(x, rect.left), rect.right), rect };
  }

  function startDrag(ev) {
    state.suppressClick = false;
    if (ev.button !== 0 || !ev.target.closest('.track, .axis, .secs')) return;
    state.drag = { x0: ev.clientX, at: offsetAt(ev.clientX) };
    ev.preventDefault();
  }

  function moveDrag(ev) {
    if (!state.drag) return;
    const brush = $('brush');
    const b = offsetAt(ev.clientX);
    const lanes = $('lanes').getBoundingClientRect();
    const a = Math.min(state.drag.at.x, b.x);
    const w = Math.abs(state.drag.at.x - b.x);
    brush.style.display = w > 3 ? 'block' : 'none';
    brush.style.left = `${a - lanes.left}px`;
    brush.style.width = `${w}px`;
  }

  function endDrag(ev) {
    if (!state.drag) return;
    const start = state.drag;
    state.drag = null;
    $('brush').style.display = 'none';
    if (Math.abs(ev.clientX - start.x0) < 4) return;
    const b = offsetAt(ev.clientX).off;
    state.suppressClick = true; // the click that ends this drag is not a pin
    zoom(Math.min(start.at.off, b), Math.max(start.at.off, b));
  }

  function onClick(ev) {
    if (state.suppressClick) {
      state.suppressClick = false;
      return;
    }
    const z = ev.target.closest('[data-zoom]');
    if (z) { zoomTo(z.dataset.zoom); return; }
    const hit = ev.target.closest('[data-chunk]');
    if (hit) pin(+hit.dataset.row, +hit.dataset.chunk);
  }

  function onKey(ev) {
    if (ev.target.closest && ev.target.closest('input, textarea')) return;
    if (ev.key === 'Escape') {
      if (state.pinned) unpin(); else zoom(D.lo, D.hi);
    } else if (state.pinned && (ev.key === 'ArrowLeft' || ev.key === 'ArrowRight')) {
      const [r, i] = state.pinned;
      const j = i + (ev.key === 'ArrowLeft' ? -1 : 1);
      if (j >= 0 && j < D.rows[r].items.length) { pin(r, j); ev.preventDefault(); }
    }
  }

  function buildStatic() {
    D.rows.forEach((row, r) => {
      const b = button(row.name, () => { state.textRow = r; drawText(); markPinned(); });
      b.dataset.row = r;
      $('rowtabs').appendChild(b);
    });
    const list = $('seclist');
    const all = make('li', 'r1', 'Whole map');
    all.dataset.zoom = `${D.lo}:${D.hi}`;
    list.appendChild(all);
    for (const s of D.sections) {
      const li = make('li', `r${s.rank}`, s.title);
      li.dataset.zoom = `${s.start}:${s.end}`;
      li.title = `${s.path || s.title} · characters ${fmt(s.start)}–${fmt(s.end)}`;
      list.appendChild(li);
    }
    if (!D.sections.length) list.appendChild(make('li', 'muted', 'The document has no headings.'));
    $('reset').addEventListener('click', () => zoom(D.lo, D.hi));
    $('zoomout').addEventListener('click', () => {
      const w = (view.hi - view.lo) * 2;
      const mid = (view.lo + view.hi) / 2;
      const a = Math.max(D.lo, Math.min(mid - w / 2, D.hi - w));
      zoom(a, a + w);
    });
  }

  buildStatic();
  drawAll();
  document.addEventListener('mousedown', startDrag);
  window.addEventListener('mousemove', moveDrag);
  window.addEventListener('mouseup', endDrag);
  document.addEventListener('click', onClick);
  document.addEventListener('keydown', onKey);
  document.addEventListener('mouseover', (ev) => hover(ev.target, ev));
  window.addEventListener('resize', () => { drawAxis(); drawPages(); });
  document.body.dataset.ready = 'true';
})();
