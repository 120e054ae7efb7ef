// Tasks: both roles (→ asked of the server, ← asked by it) and both dialects, live. Only
// the rows in sight are drawn, so ten thousand tasks scroll as smoothly as ten.
import { h, fill, clean, toast, duration, statusText, terminal } from '../dom.js';
import { conn as api } from '../api.js';
import { jsonView } from '../json.js';
import { resultView, contentView } from '../result.js';
import { state, on, activeConn, show } from '../store.js';

const ROW = 28;       // px, every row
const HEAD = 24;      // px, the header row, which scrolls sideways with the rows
const OVERSCAN = 8;   // rows drawn beyond the visible ones

let root = null;
let scroller = null;
let spacer = null;
let rowsBox = null;
let detail = null;
let countEl = null;
let rows = [];        // the filtered rows, in order
let selected = null;  // a row key
let dirty = false;
let ticker = null;
const filters = { role: 'all', status: 'all', text: '' };

// perf records, for the browser tests, how long after its client event a row was drawn.
const perf = (window.__mcpiPerf = window.__mcpiPerf || { taskLatency: [] });

// statusOf is a row's status as the list shows and filters it: a task mcpi stopped
// following because it is gone (its ttl ran out, the server forgot it or is gone itself)
// is "expired" or "gone", whatever its last status said; one whose outcome mcpi could
// not get is "error".
function statusOf(r) {
  if (r.gone) {
    const end = r.ended ? Date.parse(r.ended) : Date.now();
    return r.ttl !== undefined && r.ttl !== null && r.createdAt && Date.parse(r.createdAt) + r.ttl <= end ? 'expired' : 'gone';
  }
  if (r.error && !terminal(r.status)) return 'error';
  return r.status;
}

function matches(r) {
  if (filters.role !== 'all' && r.role !== filters.role) return false;
  const st = statusOf(r);
  if (filters.status === 'active' && (terminal(st) || r.ended)) return false;
  if (filters.status === 'ended' && !(terminal(st) || r.ended)) return false;
  if (filters.status === 'gone' && st !== 'gone' && st !== 'expired') return false;
  if (!['all', 'active', 'ended', 'gone'].includes(filters.status) && st !== filters.status) return false;
  if (filters.text) {
    const t = filters.text;
    if (!(r.name || '').toLowerCase().includes(t) && !(r.id || '').toLowerCase().includes(t) && !(r.statusMessage || '').toLowerCase().includes(t)) return false;
  }
  return true;
}

function recompute() {
  const c = activeConn();
  rows = c ? [...c.tasks.values()].filter(matches) : [];
  if (countEl) {
    const total = c ? c.tasks.size : 0;
    let active = 0;
    if (c) for (const r of c.tasks.values()) if (!terminal(r.status) && !r.ended) active++;
    countEl.textContent = `${total} ${total === 1 ? 'task' : 'tasks'} · ${active} active${rows.length !== total ? ` · ${rows.length} shown` : ''}`;
  }
  spacer.style.height = rows.length * ROW + 'px';
}

function elapsed(r) {
  const start = Date.parse(r.started);
  const end = r.ended ? Date.parse(r.ended) : Date.now();
  return duration(end - start);
}

function ttlLeft(r) {
  if (r.gone) return '-';
  if (r.ttl === undefined || r.ttl === null || !r.createdAt) return '-';
  const left = Date.parse(r.createdAt) + r.ttl - Date.now();
  return left <= 0 ? 'expired' : duration(left);
}

function progress(r) {
  const p = r.progress;
  if (!p) return '';
  // The server's numbers, as the terminal front ends word them (look.Progress): a total
  // that is no positive finite number is none, a progress beyond it the total reached.
  const done = Math.max(0, Number(p.progress) || 0), total = Number(p.total);
  if (total > 0 && Number.isFinite(total)) return `${Math.min(done, total)}/${total}`;
  return String(done);
}

// A drawn row: its element and cells, kept and reused as the list scrolls, so a frame
// only writes the text that changed.
const CELLS = ['role', 'id', 'name', 'status', 'msg', 'prog', 'elapsed', 'ttl', 'polls', 'wait'];
let pool = [];

function newSlot() {
  const cells = {};
  const el = h('div.trow', { role: 'row', tabindex: 0 }, CELLS.map((k) => (cells[k] = h('span.c-' + k))));
  el.addEventListener('click', () => { if (el.dataset.key) select(el.dataset.key); });
  // Enter (or Space) shows a row's detail; the arrows move to the next row up or down.
  el.addEventListener('keydown', (e) => {
    if (!el.dataset.key || e.altKey || e.ctrlKey || e.metaKey) return;
    if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); select(el.dataset.key); }
    else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') { e.preventDefault(); move(el.dataset.key, e.key === 'ArrowDown' ? 1 : -1); }
  });
  return { el, cells, row: null, top: -1, sel: false, text: {} };
}

function set(slot, k, v) {
  if (slot.text[k] !== v) {
    slot.text[k] = v;
    slot.cells[k].textContent = v;
  }
}

function fillSlot(slot, r, i) {
  const top = i * ROW;
  if (slot.top !== top) {
    slot.top = top;
    slot.el.style.transform = `translateY(${top}px)`;
  }
  const sel = r.key === selected;
  if (slot.row !== r || slot.sel !== sel) {
    slot.row = r;
    slot.sel = sel;
    const st = statusOf(r);
    slot.el.className = 'trow' + (sel ? ' selected' : '') + (r.stale ? ' stale' : '') + ' s-' + (st || 'none');
    slot.el.dataset.key = r.key;
    slot.el.dataset.status = st || '';
    set(slot, 'role', r.role === 'receiver' ? '←' : '→');
    slot.cells.role.title = r.role === 'receiver' ? 'asked by the server' : 'asked of the server';
    set(slot, 'id', clean((r.id || '…').slice(0, 8)));
    slot.cells.id.title = clean(r.id || '');
    set(slot, 'name', clean(r.name) + (r.dialect === '2026-07-28' ? ' · ext' : ''));
    slot.cells.name.title = slot.text.name;
    set(slot, 'status', statusText(statusOf(r)));
    slot.cells.status.title = r.error ? clean(r.error.message) : '';
    set(slot, 'msg', clean(r.statusMessage || (r.progress && r.progress.message) || ''));
    set(slot, 'prog', progress(r));
    set(slot, 'polls', String(r.polls || 0));
    set(slot, 'wait', r.request ? '⚑' : '');
  }
  set(slot, 'elapsed', elapsed(r));
  set(slot, 'ttl', ttlLeft(r));
}

// draw draws the rows in sight, reusing the drawn ones.
function draw() {
  if (!scroller) return;
  const top = Math.max(0, scroller.scrollTop - HEAD);
  const first = Math.max(0, Math.floor(top / ROW) - OVERSCAN);
  const last = Math.min(rows.length, Math.ceil((top + scroller.clientHeight) / ROW) + OVERSCAN);
  const n = last - first;
  while (pool.length < n) {
    const slot = newSlot();
    pool.push(slot);
    rowsBox.append(slot.el);
  }
  const now = Date.now();
  for (let j = 0; j < pool.length; j++) {
    const slot = pool[j];
    if (j >= n) {
      if (!slot.el.hidden) slot.el.hidden = true;
      continue;
    }
    if (slot.el.hidden) slot.el.hidden = false;
    const r = rows[first + j];
    fillSlot(slot, r, first + j);
    if (r.watched && !r.measured) {
      r.measured = true;
      perf.taskLatency.push(now - r.at);
      if (perf.taskLatency.length > 10000) perf.taskLatency.shift();
    }
  }
}

function soon() {
  if (dirty) return;
  dirty = true;
  requestAnimationFrame(() => {
    dirty = false;
    if (!root || !root.isConnected) return;
    const t0 = performance.now();
    recompute();
    draw();
    if (selected) renderDetail();
    (perf.updateFrames = perf.updateFrames || []).push(performance.now() - t0);
    if (perf.updateFrames.length > 1000) perf.updateFrames.shift();
  });
}

function select(key) {
  selected = key;
  draw();
  renderDetail();
}

// move selects the row d rows from the row key, brings it into sight, and focuses it.
function move(key, d) {
  const j = rows.findIndex((r) => r.key === key) + d;
  if (j < 0 || j >= rows.length || rows.findIndex((r) => r.key === key) < 0) return;
  const top = HEAD + j * ROW;
  if (top - HEAD < scroller.scrollTop) scroller.scrollTop = top - HEAD;
  else if (top + ROW > scroller.scrollTop + scroller.clientHeight) scroller.scrollTop = top + ROW - scroller.clientHeight;
  select(rows[j].key);
  const slot = pool.find((x) => !x.el.hidden && x.row && x.row.key === rows[j].key);
  if (slot) slot.el.focus();
}

// liveLine is the detail's line of what moves on its own: elapsed time, ttl left.
function liveLine(r) {
  return statusText(statusOf(r)) + (r.statusMessage ? ' · ' + clean(r.statusMessage) : '') + ` · ${elapsed(r)} · ttl left ${ttlLeft(r)} · ${r.polls || 0} poll${r.polls === 1 ? '' : 's'}`;
}

let live = null; // the detail's live line

// resultOf shows a task's result: a tool result's content as the Tools view shows it (its
// text plainly), and the JSON below.
function resultOf(v) {
  if (v && typeof v === 'object' && Array.isArray(v.content)) return [resultView(v, undefined, { raw: false }), jsonView(v, { open: 1 })];
  if (v && typeof v === 'object' && v.content && typeof v.content === 'object' && !Array.isArray(v.content)) return [contentView(v.content), jsonView(v, { open: 1 })];
  return jsonView(v);
}

let detailFor = null; // the row object the detail shows

function renderDetail() {
  const c = activeConn();
  const r = c && c.tasks.get(selected);
  if (r && r === detailFor) return; // unchanged
  detailFor = r || null;
  if (!r) { live = null; fill(detail, h('p.muted', 'Pick a task to see it whole.')); return; }
  const actions = [];
  let noCancel = null;
  if (r.role === 'requestor' && !terminal(statusOf(r)) && !r.ended && !r.stale) {
    // A server of 2025-11-25 that declares no tasks.cancel is sent no tasks/cancel: the
    // button stays, disabled, and the reason is said beside it.
    const why = c.info.noCancel;
    actions.push(h('button.danger', { type: 'button', 'data-action': 'cancel', disabled: !!why, title: why ? clean(why) : undefined, on: { click: () => confirmCancel(c, r) } }, 'Cancel task…'));
    if (why) noCancel = h('p.muted.no-cancel', 'No cancel: ', clean(why));
  }
  if (r.request) {
    actions.push(h('button.primary', { type: 'button', 'data-action': 'prompt', on: { click: () => show('requests', { id: r.request }) } }, 'Answer its prompt'));
  }
  const state = { taskId: r.id, status: r.status, statusMessage: r.statusMessage, createdAt: r.createdAt, ttl: r.ttl, pollInterval: r.pollInterval };
  let result = null;
  if (r.result) {
    let v;
    try { v = JSON.parse(typeof r.result === 'string' ? r.result : JSON.stringify(r.result)); } catch { v = r.result; }
    result = h('div.task-result', h('h4', r.role === 'receiver' ? 'Answer sent to the server' : 'Result'), resultOf(v));
  }
  fill(detail,
    h('h3', r.role === 'receiver' ? '← ' : '→ ', clean(r.name), ' ', h('span.muted', clean(r.id || '')), r.dialect === '2026-07-28' ? h('span.ext', ' Tasks extension') : null),
    live = h('p.tlive', liveLine(r)),
    r.stale ? h('p.muted', 'from an earlier connection') : null,
    actions.length ? h('div.buttons', actions) : null,
    noCancel,
    r.error ? h('div', h('h4.error', r.gone ? 'Gone' : 'Error'), h('p.error', clean(r.error.message)), r.error.code ? jsonView(r.error) : null) : null,
    result,
    h('details', h('summary', 'Task'), jsonView(state)));
}

function confirmCancel(c, r) {
  const dlg = h('dialog.confirm', h('p', 'Cancel the task ', h('b', clean(r.name)), ' (', clean(r.id), ') on the server?'),
    h('div.buttons',
      h('button.danger', { type: 'button', 'data-action': 'confirm-cancel', on: { click: async () => {
        dlg.close(); dlg.remove();
        try { await api(c.info.id).cancel(r.key); toast('cancelled'); } catch (err) { toast(err.message, 'error'); }
      } } }, 'Cancel the task'),
      h('button', { type: 'button', on: { click: () => { dlg.close(); dlg.remove(); } } }, 'Keep it running')));
  document.body.append(dlg);
  dlg.showModal();
}

function mount(el, arg) {
  root = el;
  const c = activeConn();
  if (!c) { fill(el, h('p.muted', 'Connect to a server first.')); return; }
  if (arg && arg.key) selected = arg.key;
  const sel = (name, opts, key) => {
    const s = h('select', { 'aria-label': name }, opts.map(([v, t]) => h('option', { value: v }, t)));
    s.value = filters[key];
    s.addEventListener('change', () => { filters[key] = s.value; soon(); });
    return s;
  };
  const text = h('input', { type: 'search', placeholder: 'filter by tool, id, message', value: filters.text, 'aria-label': 'filter tasks' });
  text.addEventListener('input', () => { filters.text = text.value.toLowerCase(); soon(); });
  countEl = h('span.count');
  scroller = h('div.tscroll', { role: 'grid', 'aria-label': 'tasks' });
  spacer = h('div.tspacer');
  rowsBox = h('div.trows');
  pool = [];
  // The header is in the scroller, so that it moves sideways with the rows in a narrow
  // window; it stays at the top as they scroll down.
  const head = h('div.thead', { role: 'row' }, h('span.c-role', ''), h('span.c-id', 'ID'), h('span.c-name', 'TOOL / METHOD'), h('span.c-status', 'STATUS'),
    h('span.c-msg', 'MESSAGE'), h('span.c-prog', 'PROG'), h('span.c-elapsed', 'ELAPSED'), h('span.c-ttl', 'TTL LEFT'), h('span.c-polls', 'POLLS'), h('span.c-wait', { title: 'waits for your answer' }, '⚑'));
  scroller.append(head, spacer, rowsBox);
  scroller.addEventListener('scroll', () => draw(), { passive: true });
  detail = h('section.tdetail');
  detailFor = null;
  const discover = c.info.protocol === '2025-11-25'
    ? h('button', { type: 'button', title: 'tasks/list: follow the server\'s tasks not shown yet', on: { click: async () => {
      try { const r = await api(c.info.id).serverTasks(); toast(`following ${r.followed} of the server's tasks`); } catch (err) { toast(err.message, 'error'); }
    } } }, 'Find the server\'s tasks')
    : null;
  fill(el,
    h('div.tbar', countEl,
      sel('role', [['all', 'both roles'], ['requestor', '→ asked of the server'], ['receiver', '← asked by the server']], 'role'),
      sel('status', [['all', 'any status'], ['active', 'active'], ['ended', 'ended'], ['working', 'working'], ['input_required', 'input_required'], ['completed', 'completed'], ['failed', 'failed'], ['cancelled', 'cancelled'], ['gone', 'gone or expired'], ['error', 'error']], 'status'),
      text, discover),
    h('div.tsplit', scroller, detail));
  recompute();
  if (selected) {
    const i = rows.findIndex((r) => r.key === selected);
    if (i >= 0) scroller.scrollTop = Math.max(0, HEAD + i * ROW - scroller.clientHeight / 2);
  }
  draw();
  renderDetail();
  clearInterval(ticker);
  // Elapsed and ttl left move on their own.
  ticker = setInterval(() => {
    if (!root || !root.isConnected) { clearInterval(ticker); return; }
    draw();
    if (live && detailFor) live.textContent = liveLine(detailFor);
  }, 1000);
}

export const tasksView = { name: 'tasks', title: 'Tasks', mount };

on('task', (c, r) => {
  if (c === activeConn() && state.view === 'tasks' && root && root.isConnected) {
    r.watched = !!r.at; // measured when it is drawn
    soon();
  }
});
on('snapshot', () => { if (state.view === 'tasks' && root && root.isConnected) soon(); });
