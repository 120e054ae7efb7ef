// The page: one event stream from the Go side keeps the state below, and the views render
// it. Every server the page is connected to is a tab; the views show the active one.
import { h, fill, clean, toast, loginLink, reconnectButton } from './dom.js';
import { state, emit, activeConn, setNavigation } from './store.js';
import { connectView } from './views/connect.js';
import { toolsView } from './views/tools.js';
import { tasksView } from './views/tasks.js';
import { requestsView } from './views/requests.js';
import { resourcesView } from './views/resources.js';
import { promptsView } from './views/prompts.js';
import { logView } from './views/log.js';

const LOG_KEPT = 20000;

function newConn(info) {
  return { info, tasks: new Map(), requests: new Map(), log: [], tools: null };
}

const views = [
  connectView, toolsView, tasksView, requestsView, resourcesView, promptsView, logView,
];

// show switches to a view (by name), optionally with an argument the view takes.
function show(name, arg) {
  state.view = name;
  location.hash = name;
  renderNav();
  const v = views.find((x) => x.name === name) || toolsView;
  const main = document.getElementById('main');
  main.replaceChildren();
  main.dataset.view = v.name;
  v.mount(main, arg);
}

function selectConn(id) {
  state.active = id;
  renderConns();
  renderHeader();
  show(state.view === 'connect' && id ? 'tools' : state.view);
}

function pendingCount(c) {
  let n = 0;
  for (const r of c.requests.values()) if (!r.settled) n++;
  return n;
}

// The tabs are drawn once each and then updated in place: a click never lands on a
// button that is being replaced.
const connTabs = new Map(); // conn id -> {el, dot, name, badge}

function renderConns() {
  const nav = document.getElementById('conns');
  for (const [id, t] of connTabs) {
    if (!state.conns.has(id)) { t.el.remove(); connTabs.delete(id); }
  }
  for (const c of state.conns.values()) {
    let t = connTabs.get(c.info.id);
    if (!t) {
      const id = c.info.id;
      t = { dot: h('span.dot'), name: h('span.name'), badge: h('span.badge', { hidden: true }) };
      t.el = h('button.conn-tab', { 'data-conn': id, on: { click: () => selectConn(id) } }, t.dot, t.name, t.badge);
      connTabs.set(id, t);
      nav.append(t.el);
    }
    t.el.classList.toggle('active', c.info.id === state.active);
    t.dot.className = 'dot ' + (c.info.unreachable ? 'failed' : (c.info.state || 'connecting'));
    // The protocol tells apart two tabs on one server.
    const name = clean(short(c.info.server ? c.info.server.name : c.info.name)) + (c.info.protocol ? ' · ' + clean(c.info.protocol) : '');
    t.el.title = clean(c.info.name) + (c.info.protocol ? ' · protocol ' + clean(c.info.protocol) : '');
    if (t.name.textContent !== name) t.name.textContent = name;
    const n = pendingCount(c);
    t.badge.hidden = !n;
    t.badge.textContent = String(n);
  }
}

function short(s) {
  s = String(s || '');
  return s.length > 32 ? s.slice(0, 31) + '…' : s;
}

function renderHeader() {
  const el = document.getElementById('conn-header');
  const c = activeConn();
  if (!c) {
    fill(el, h('span.muted', 'Not connected. Pick a server in Connect.'));
    return;
  }
  const i = c.info;
  const caps = i.capabilities ? Object.keys(i.capabilities).filter((k) => i.capabilities[k]).join(' ') : '';
  // A session whose server does not answer goes on if the same server process answers
  // again, and one that ended (a server that restarted knows it no more, a stdio server
  // exited) needs a new one: a Reconnect is at hand for both. 2026-07-28 keeps no
  // session: any server that answers at the address takes the next request.
  const ended = !i.unreachable && (i.state === 'failed' || i.state === 'closed');
  const unreachable = i.protocol === '2026-07-28'
    ? ': mcpi goes on once a server answers there again (this protocol keeps no session)'
    : ': the session goes on if the same server process answers again; a server that restarted has forgotten it and needs a new one';
  fill(el,
    i.unreachable ? h('span.state.unreachable', 'not answering') : h('span.state.' + i.state, i.state),
    i.unreachable ? h('span.warn', { id: 'unreachable' }, clean(i.unreachable) + unreachable) : null,
    i.unreachable ? reconnectButton(i.id) : null,
    i.server ? h('b', clean(i.server.name) + ' ' + clean(i.server.version)) : h('b', clean(i.name)),
    i.transport ? h('span.muted', '· ' + i.transport) : null,
    i.protocol ? h('span', { id: 'era' }, '· protocol ' + clean(i.protocol) + ' (' + clean(i.era) + ' era)') : null,
    caps ? h('span.muted.caps', '· ' + clean(caps)) : null,
    i.error ? h('span.error', clean(i.error)) : null,
    ended ? reconnectButton(i.id) : null,
    i.authURL ? loginLink(i) : null,
    i.instructions ? h('details.instructions', h('summary', 'instructions'), h('pre', clean(i.instructions))) : null,
  );
}

const viewTabs = new Map(); // view name -> {el, extra}

function renderNav() {
  const nav = document.getElementById('views');
  if (!viewTabs.size) {
    views.forEach((v, i) => {
      const extra = h('span');
      const el = h('button.view-tab', { 'data-view': v.name, title: 'Alt+' + (i + 1), on: { click: () => show(v.name) } }, v.title, extra);
      viewTabs.set(v.name, { el, extra });
      nav.append(el);
    });
  }
  const c = activeConn();
  const pending = c ? pendingCount(c) : 0;
  const tasks = c ? c.tasks.size : 0;
  for (const [name, t] of viewTabs) {
    t.el.classList.toggle('active', name === state.view);
    if (name === 'requests') {
      if (pending) {
        if (!t.badge) { t.badge = h('span.badge', { id: 'pending-badge' }); t.extra.append(t.badge); }
        t.badge.textContent = String(pending);
      } else if (t.badge) { t.badge.remove(); t.badge = null; }
    }
    if (name === 'tasks') {
      const txt = tasks ? String(tasks) : '';
      if (!t.count) { t.count = h('span.count'); t.extra.append(t.count); }
      if (t.count.textContent !== txt) t.count.textContent = txt;
    }
  }
}

// apply takes one event of the stream.
function apply(ev) {
  if (ev.type === 'snapshot') {
    const perf = (window.__mcpiPerf = window.__mcpiPerf || {});
    if (!perf.snapshot) perf.snapshot = performance.timeOrigin + performance.now();
    perf.snapshots = (perf.snapshots || 0) + 1;
    state.conns.clear();
    state.taskTTL = ev.data.taskTTL;
    for (const s of ev.data.conns) {
      const c = newConn(s.info);
      c.tools = s.tools || null;
      for (const t of s.tasks) c.tasks.set(t.key, t);
      for (const r of s.requests) c.requests.set(r.id, r);
      c.log = s.log;
      state.conns.set(s.info.id, c);
    }
    state.seq = ev.seq;
    if (!state.conns.has(state.active)) state.active = state.conns.size ? state.conns.keys().next().value : null;
    renderConns();
    renderHeader();
    show(state.view);
    emit('snapshot');
    return;
  }
  if (ev.seq <= state.seq) return; // the snapshot has it
  state.seq = ev.seq;
  let c = state.conns.get(ev.conn);
  switch (ev.type) {
    case 'conn':
      if (ev.data.state === 'forgotten') {
        state.conns.delete(ev.conn);
        if (state.active === ev.conn) state.active = state.conns.size ? state.conns.keys().next().value : null;
        renderConns(); renderHeader(); show(state.view);
        return;
      }
      if (!c) {
        c = newConn(ev.data);
        state.conns.set(ev.conn, c);
        if (!state.active || state.pendingActive === ev.conn) { state.active = ev.conn; state.pendingActive = null; }
      }
      if (ev.data.state !== 'connected' || (c.info.state !== 'connected')) c.tools = null;
      c.info = ev.data;
      renderConns();
      if (ev.conn === state.active) renderHeader();
      emit('conn', c, ev.data);
      return;
    case 'tools':
      if (!c) return;
      c.tools = ev.data;
      emit('tools', c, ev.data);
      return;
    case 'task':
      if (!c) return;
      c.tasks.set(ev.data.key, ev.data);
      if (ev.conn === state.active) renderNavSoon();
      emit('task', c, ev.data);
      return;
    case 'request':
      if (!c) return;
      if (ev.data.settled) c.requests.delete(ev.data.id);
      else c.requests.set(ev.data.id, ev.data);
      renderConns();
      renderNav();
      emit('request', c, ev.data);
      return;
    case 'message':
      if (!c) return;
      c.log.push(ev.data);
      // Trimmed by a tenth at a time: one row at a time would move the whole log on
      // every message of a flood.
      if (c.log.length > LOG_KEPT + LOG_KEPT / 10) c.log.splice(0, c.log.length - LOG_KEPT);
      emit('message', c, ev.data);
      return;
    default:
      if (c) emit(ev.type, c, ev.data);
  }
}

let navSoon = false;
function renderNavSoon() {
  if (navSoon) return;
  navSoon = true;
  requestAnimationFrame(() => { navSoon = false; renderNav(); });
}

// stream opens the event stream, and opens it again when it drops (the snapshot then
// brings the page up to date).
function stream() {
  const dot = document.getElementById('stream');
  const es = new EventSource('/api/events');
  es.onopen = () => { dot.className = 'dot connected'; dot.title = 'event stream open'; };
  es.onmessage = (m) => {
    let ev;
    try { ev = JSON.parse(m.data); } catch { return; }
    apply(ev);
  };
  es.onerror = () => {
    dot.className = 'dot failed';
    dot.title = 'event stream lost; reconnecting';
    if (es.readyState === EventSource.CLOSED) setTimeout(stream, 1000);
  };
}

document.getElementById('add-conn').addEventListener('click', () => show('connect'));
document.addEventListener('keydown', (e) => {
  if (e.altKey && e.key >= '1' && e.key <= String(views.length)) {
    show(views[Number(e.key) - 1].name);
    e.preventDefault();
  }
});
window.addEventListener('unhandledrejection', (e) => toast(e.reason && e.reason.message || String(e.reason), 'error'));

setNavigation({ show, selectConn });
const initial = location.hash.slice(1);
if (views.some((v) => v.name === initial)) state.view = initial;
renderNav();
stream();
