// Log: every JSON-RPC message both ways, filtered by direction, method and task, each
// one copied as JSON with a click. Only the lines in sight are drawn.
import { h, fill, clean, toast } from '../dom.js';
import { state, on, activeConn } from '../store.js';
import { jsonView } from '../json.js';
import { conn as api } from '../api.js';

const LINE = 22;
let root = null;
let scroller = null;
let spacer = null;
let lines = null;
let detail = null;
let shown = [];
let follow = true;
let dirty = false;
let countEl = null;
const filters = { dir: 'all', method: '', task: '' };

function parse(row) {
  if (!row.parsed) {
    let m;
    try { m = typeof row.message === 'string' ? JSON.parse(row.message) : row.message; } catch { m = {}; }
    row.parsed = m || {};
  }
  return row.parsed;
}

// methodOf names a message: its method (and id, for a request), or for a response the
// method of the request it answers (row.answers, see name) with ✓ or ✗ and the id.
function methodOf(m, row) {
  if (m.method) return 'id' in m ? m.method + ' #' + JSON.stringify(m.id) : m.method;
  if (!('result' in m || 'error' in m)) return '';
  const mark = 'error' in m ? '✗ ' : '✓ ';
  return row.answers ? mark + row.answers + ' #' + JSON.stringify(m.id) : ('error' in m ? 'error ' : 'response ') + JSON.stringify(m.id);
}

// name gives each response of the log the method of the request it answers: the last
// request of that id that went the other way.
function name(log) {
  const asked = new Map();
  for (const row of log) {
    if (row.dir !== 'in' && row.dir !== 'out') continue;
    const m = parse(row);
    const key = JSON.stringify(m.id);
    if (m.method && key !== undefined) {
      asked.set(row.dir + key, m.method);
    } else if (('result' in m || 'error' in m) && row.answers === undefined) {
      const k = (row.dir === 'in' ? 'out' : 'in') + key;
      row.answers = asked.get(k) || '';
      asked.delete(k);
    }
  }
}

function taskOf(m) {
  const p = m.params || m.result || {};
  return p.taskId || (p.task && p.task.taskId) || (p._meta && p._meta['io.modelcontextprotocol/related-task'] && p._meta['io.modelcontextprotocol/related-task'].taskId) || '';
}

function matches(row) {
  if (row.dir === 'gap') return true; // where messages are missing, whatever the filter
  if (filters.dir !== 'all' && row.dir !== filters.dir) return false;
  const m = parse(row);
  if (filters.method && !methodOf(m, row).toLowerCase().includes(filters.method)) return false;
  if (filters.task && !JSON.stringify(m).includes(filters.task)) return false;
  return true;
}

function recompute() {
  const c = activeConn();
  if (c) name(c.log);
  shown = c ? c.log.filter(matches) : [];
  spacer.style.height = shown.length * LINE + 'px';
  if (countEl) {
    const total = c ? c.log.length : 0;
    const t = `${total} message${total === 1 ? '' : 's'}${shown.length !== total ? ` · ${shown.length} shown` : ''}`;
    if (countEl.textContent !== t) countEl.textContent = t;
  }
  if (follow) scroller.scrollTop = scroller.scrollHeight;
}

function draw() {
  if (!scroller) return;
  const first = Math.max(0, Math.floor(scroller.scrollTop / LINE) - 10);
  const last = Math.min(shown.length, Math.ceil((scroller.scrollTop + scroller.clientHeight) / LINE) + 10);
  const els = [];
  for (let i = first; i < last; i++) {
    const row = shown[i];
    const m = parse(row);
    let el;
    if (row.dir === 'gap') {
      el = h('div.lrow.gap',
        h('span.l-time', new Date(row.time).toISOString().slice(11, 23)),
        h('span.l-gap', `── ${Number(m.dropped) || 0} event${Number(m.dropped) === 1 ? '' : 's'} not shown: this page's connection fell behind the server ──`));
    } else {
      const t = taskOf(m);
      el = h('div.lrow.' + row.dir, { title: 'click to see it whole', on: { click: () => see(row) } },
        h('span.l-time', new Date(row.time).toISOString().slice(11, 23)),
        h('span.l-dir', row.dir === 'in' ? '←' : '→'),
        h('span.l-method', clean(methodOf(m, row))),
        t ? h('span.l-task', clean(String(t).slice(0, 8))) : h('span.l-task'),
        h('span.l-body', clean(preview(m.params || m.result || m.error || {})).slice(0, 300)));
    }
    // Set through the style object: the page's Content-Security-Policy drops style
    // attributes, which put every row at the top.
    el.style.top = i * LINE + 'px';
    els.push(el);
  }
  lines.replaceChildren(...els);
}

// preview is a message's params (or result, or error) on one line, its _meta last: in
// 2026-07-28 every request carries the client's capabilities there, before what the
// request is about.
function preview(p) {
  if (p && typeof p === 'object' && !Array.isArray(p) && '_meta' in p) {
    const { _meta, ...rest } = p;
    return JSON.stringify({ ...rest, _meta });
  }
  return JSON.stringify(p);
}

function see(row) {
  const m = parse(row);
  fill(detail, h('div.buttons',
    h('button', { type: 'button', 'data-action': 'copy', on: { click: async () => {
      try { await navigator.clipboard.writeText(JSON.stringify(m, null, 2)); toast('copied'); } catch { toast('the browser refused the clipboard', 'error'); }
    } } }, 'Copy as JSON'),
    h('button', { type: 'button', on: { click: () => fill(detail) } }, 'Close')),
  jsonView(m, { open: 3 }));
}

function soon() {
  if (dirty) return;
  dirty = true;
  requestAnimationFrame(() => { dirty = false; if (root && root.isConnected) { recompute(); draw(); } });
}

function mount(el) {
  root = el;
  const c = activeConn();
  if (!c) { fill(el, h('p.muted', 'Connect to a server first.')); return; }
  const dir = h('select', { 'aria-label': 'direction' }, h('option', { value: 'all' }, 'both ways'), h('option', { value: 'out' }, '→ to the server'), h('option', { value: 'in' }, '← from the server'));
  dir.value = filters.dir;
  dir.addEventListener('change', () => { filters.dir = dir.value; soon(); });
  const method = h('input', { type: 'search', placeholder: 'method', value: filters.method, 'aria-label': 'filter by method' });
  method.addEventListener('input', () => { filters.method = method.value.toLowerCase(); soon(); });
  const task = h('input', { type: 'search', placeholder: 'task id', value: filters.task, 'aria-label': 'filter by task' });
  task.addEventListener('input', () => { filters.task = task.value.trim(); soon(); });
  const level = h('select', { 'aria-label': 'server log level' }, ['debug', 'info', 'notice', 'warning', 'error', 'critical', 'alert', 'emergency'].map((l) => h('option', { value: l }, l)));
  level.value = c.info.logLevel || 'info';
  level.addEventListener('change', async () => {
    try { await api(c.info.id).loglevel(level.value); toast('log level ' + level.value); } catch (e) { toast(e.message, 'error'); }
  });
  scroller = h('div.lscroll', { 'aria-label': 'messages' });
  spacer = h('div.tspacer');
  lines = h('div.lrows');
  scroller.append(spacer, lines);
  scroller.addEventListener('scroll', () => {
    follow = scroller.scrollTop + scroller.clientHeight >= scroller.scrollHeight - LINE;
    draw();
  }, { passive: true });
  detail = h('section.ldetail');
  countEl = h('span.count', { id: 'log-count' });
  fill(el, h('div.tbar', countEl, dir, method, task,
    c.info.capabilities && c.info.capabilities.logging ? h('label', 'server log level ', level) : null),
  h('div.lsplit', scroller, detail));
  recompute();
  draw();
}

export const logView = { name: 'log', title: 'Log', mount };

on('message', (c) => {
  if (c === activeConn() && state.view === 'log' && root && root.isConnected) soon();
});
on('snapshot', () => { if (state.view === 'log' && root && root.isConnected) soon(); });
