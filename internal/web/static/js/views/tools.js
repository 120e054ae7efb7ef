// Tools: the server's tools; a form from the input schema (or raw JSON); call, or call as
// a task with a ttl (2025-11-25), or call and let the server decide (2026-07-28); the
// result rendered.
import { h, fill, clean, toast, duration } from '../dom.js';
import { conn as api } from '../api.js';
import { argumentsEditor } from '../form.js';
import { resultView } from '../result.js';
import { state, on, activeConn, show } from '../store.js';

let root = null;
let list = null;
let pane = null;
let selected = null; // the tool's name
let filter = '';
// The plain calls waiting for their results, by the name the page gave them: what shows
// their progress.
const running = new Map();

async function load(c, force) {
  if (c.tools && !force) return c.tools;
  const r = await api(c.info.id).tools();
  c.tools = r.items;
  return c.tools;
}

function modern(c) { return c.info.protocol === '2026-07-28'; }

function support(c, t) {
  if (modern(c)) return 'server';
  return (t.execution && t.execution.taskSupport) || 'forbidden';
}

function renderList(c) {
  if (!list) return;
  const tools = (c.tools || []).filter((t) => !filter || t.name.toLowerCase().includes(filter));
  fill(list, tools.map((t) => h('li' + (t.name === selected ? '.selected' : ''), {
    'data-tool': t.name, tabindex: 0,
    on: { click: () => select(c, t.name), keydown: (e) => { if (e.key === 'Enter') select(c, t.name); } },
  }, h('span.name', clean(t.name)), modern(c) ? null : h('span.tag.' + support(c, t), support(c, t)))));
}

function select(c, name) {
  selected = name;
  renderList(c);
  renderPane(c);
}

function renderPane(c) {
  const t = (c.tools || []).find((x) => x.name === selected);
  if (!t) {
    fill(pane, h('p.muted', c.tools ? 'Pick a tool.' : 'Listing tools…'));
    return;
  }
  const sup = support(c, t);
  const editor = argumentsEditor(t.inputSchema, undefined);
  const out = h('div.call-out');
  const ttl = h('input', { type: 'number', min: 0, step: 'any', value: String(state.taskTTL / 1000), name: 'ttl', 'aria-label': 'task ttl in seconds' });
  const run = async (asTask) => {
    const { value, errors } = editor.value();
    if (errors.length) {
      fill(out, h('div.error', 'Fix the arguments first; nothing was sent.'), h('ul', errors.map((e) => h('li', clean(e)))));
      return;
    }
    // One call at a time from this pane, as in the terminal UI: a second would leave the
    // first's result to land over it. Cancel ends the one running.
    for (const b of buttons) if (b.tagName === 'BUTTON') b.disabled = true;
    const started = performance.now();
    // getRandomValues, not randomUUID: the page may be served where it is not a secure context.
    const call = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');
    const bar = h('progress', { 'aria-label': 'progress' });
    const said = h('span.progress-text.muted', 'no progress from the server yet');
    let stopped = false;
    const stop = h('button', { type: 'button', 'data-action': 'stop', on: { click: async () => {
      stop.disabled = true;
      stopped = true;
      try { await api(c.info.id).stop(call); } catch (e) { toast(e.message, 'error'); }
    } } }, 'Cancel');
    fill(out, h('div.muted.calling', `Calling ${clean(t.name)}… `, stop), h('div.call-progress', bar, ' ', said));
    running.set(call, { bar, said });
    const p = { name: t.name, arguments: value, call };
    if (asTask) { p.task = true; p.ttl = Math.round(Number(ttl.value || 0) * 1000); }
    try {
      let r;
      try { r = await api(c.info.id).call(p); } finally { running.delete(call); }
      const took = duration(performance.now() - started);
      if (r.task) {
        fill(out, h('div.muted', `${clean(t.name)} runs as a task: follow it in Tasks.`));
        toast(modern(c) ? `the server runs ${t.name} as a task` : `${t.name} runs as a task`);
        show('tasks', { key: r.task });
        return;
      }
      window.__lastResult = r.result; // for the browser tests
      fill(out, h('h3', `Result of ${clean(t.name)} in ${took}`, asTask && !modern(c) ? h('span.warn', ' (the server ran it plainly, not as a task)') : null),
        resultView(r.result, t.outputSchema));
    } catch (err) {
      if (stopped) fill(out, h('h3.warn', `Cancelled ${clean(t.name)}`), h('div.muted', clean(err.message)));
      else fill(out, h('h3.error', `Error from ${clean(t.name)}`), h('div.error', clean(err.message)));
    } finally {
      for (const b of buttons) if (b.tagName === 'BUTTON') b.disabled = false;
    }
  };
  const buttons = [];
  if (modern(c)) {
    buttons.push(h('button.primary', { type: 'button', 'data-action': 'call', on: { click: () => run(false) } }, 'Call'),
      h('span.muted', ' the server decides whether the call becomes a task'));
  } else {
    if (sup !== 'required') buttons.push(h('button.primary', { type: 'button', 'data-action': 'call', on: { click: () => run(false) } }, 'Call'));
    if (sup !== 'forbidden' && c.info.capabilities && c.info.capabilities.tasks) {
      buttons.push(h('button' + (sup === 'required' ? '.primary' : ''), { type: 'button', 'data-action': 'task', on: { click: () => run(true) } }, 'Call as task'),
        h('label.ttl', ' ttl ', ttl, ' s'));
    }
  }
  fill(pane,
    h('h2', 'tools/call ', h('span.tool-name', clean(t.name)), t.title ? h('span.muted', ' ' + clean(t.title)) : null,
      h('span.tag.' + sup, modern(c) ? 'server decides' : 'taskSupport ' + sup)),
    t.description ? h('p.desc', clean(t.description)) : null,
    annotations(t),
    editor.el,
    h('div.buttons', buttons),
    out);
}

function annotations(t) {
  const a = t.annotations;
  if (!a) return null;
  const hints = [['readOnlyHint', 'read-only'], ['destructiveHint', 'destructive'], ['idempotentHint', 'idempotent'], ['openWorldHint', 'open-world']]
    .filter(([k]) => typeof a[k] === 'boolean').map(([k, w]) => (a[k] ? w : 'not ' + w));
  return hints.length ? h('p.muted.hints', 'hints: ' + hints.join(', ')) : null;
}

async function mount(el) {
  root = el;
  const c = activeConn();
  if (!c) { fill(el, h('p.muted', 'Connect to a server first.')); return; }
  const search = h('input', { type: 'search', placeholder: 'filter', 'aria-label': 'filter tools', value: filter });
  search.addEventListener('input', () => { filter = search.value.toLowerCase(); renderList(c); });
  list = h('ul.tools', { 'aria-label': 'tools' });
  pane = h('section.pane');
  fill(el, h('div.split', h('aside.side', h('div.side-head', h('span#tool-count', ''), search,
    h('button', { title: 'List again', on: { click: () => refresh(c) } }, '↻')), list), pane));
  if (c.info.state !== 'connected' && !c.tools) {
    // The tools come with the connection (a "tools" event).
    fill(list, h('li.muted', c.info.state === 'connecting' ? 'Connecting…' : 'Not connected: reconnect in Connect.'));
    fill(pane);
    return;
  }
  await refresh(c, false);
}

async function refresh(c, force = true) {
  try {
    await load(c, force);
  } catch (err) {
    fill(list, h('li.error', clean(err.message)));
    return;
  }
  if (c !== activeConn() || !root || !root.isConnected) return;
  const count = document.getElementById('tool-count');
  if (count) count.textContent = `${c.tools.length} tools`;
  if (!selected || !c.tools.some((t) => t.name === selected)) selected = c.tools.length ? c.tools[0].name : null;
  renderList(c);
  renderPane(c);
  const perf = (window.__mcpiPerf = window.__mcpiPerf || {});
  if (!perf.toolsPainted) perf.toolsPainted = performance.timeOrigin + performance.now();
}

export const toolsView = { name: 'tools', title: 'Tools', mount };

on('list', (c, d) => {
  // The Go side lists them again, and a "tools" event brings them.
  if (d.method === 'notifications/tools/list_changed') c.tools = null;
});
on('progress', (c, d) => {
  const v = running.get(d.call);
  if (!v) return;
  const total = Number(d.total);
  if (total > 0) { v.bar.max = total; v.bar.value = Math.min(Number(d.progress) || 0, total); } else v.bar.removeAttribute('value');
  v.said.textContent = clean(`${d.progress}${total > 0 ? '/' + total : ''}${d.message ? ' · ' + d.message : ''}`);
});
on('tools', (c) => {
  if (c === activeConn() && state.view === 'tools' && root && root.isConnected) refresh(c, false);
});
