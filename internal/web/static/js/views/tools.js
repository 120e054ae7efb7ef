// Tools: the server's tools; a form from the input schema (or raw JSON); call, or call as
// a task with a ttl (2025-11-25), or call and let the server decide (2026-07-28); the
// result rendered.
import { h, fill, clean, toast, duration, enter, reconnectButton } from '../dom.js';
import { conn as api } from '../api.js';
import { argumentsEditor } from '../form.js';
import { resultView } from '../result.js';
import { state, on, activeConn, show } from '../store.js';

let root = null;
let list = null;
let pane = null;
let selected = null; // the tool's name
let filter = '';

// The calls made from this page, one per connection and tool: what the pane of that tool
// shows (the call running, its progress, its result), kept here so that it survives the
// pane being drawn again, as it is every time the Tools view is shown (answering a
// server's request needs the Requests view, in the middle of a call).
const calls = new Map();   // callKey(conn id, tool) -> call
const running = new Map(); // the page's name for a running call -> call
let shown = null;          // what the pane shows: {key, out, buttons}

function callKey(id, tool) { return id + '\n' + tool; }

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
    on: { click: () => select(c, t.name), keydown: enter(() => select(c, t.name, true)) },
  }, h('span.name', clean(t.name)), modern(c) ? null : h('span.tag.' + support(c, t), support(c, t)))));
}

function select(c, name, focus) {
  selected = name;
  renderList(c);
  renderPane(c);
  if (focus) {
    const li = list.querySelector(`li[data-tool="${CSS.escape(name)}"]`);
    if (li) li.focus();
  }
}

function renderPane(c) {
  const t = (c.tools || []).find((x) => x.name === selected);
  if (!t) {
    shown = null;
    fill(pane, h('p.muted', c.tools ? 'Pick a tool.' : 'Listing tools…'));
    return;
  }
  const key = callKey(c.info.id, t.name);
  const last = calls.get(key);
  const sup = support(c, t);
  // The arguments of the last call stay in the form.
  const editor = argumentsEditor(t.inputSchema, last && last.args);
  const out = h('div.call-out');
  const ttl = h('input', { type: 'number', min: 0, step: 'any', value: last && last.ttl !== undefined ? String(last.ttl / 1000) : String(state.taskTTL / 1000), name: 'ttl', 'aria-label': 'task ttl in seconds' });
  const buttons = [];
  const run = (asTask) => start(c, t, editor, asTask ? ttl : null);
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
  // Enter in a one-line field of the form calls the tool (as the first button would).
  editor.el.addEventListener('keydown', (e) => {
    const el = e.target;
    if (e.key !== 'Enter' || e.isComposing || e.shiftKey || e.altKey || e.ctrlKey || e.metaKey) return;
    if (el.tagName !== 'INPUT' || ['checkbox', 'radio', 'button', 'submit'].includes(el.type)) return;
    e.preventDefault();
    const first = buttons.find((b) => b.tagName === 'BUTTON' && !b.disabled);
    if (first) first.click();
  });
  shown = { key, out, buttons: buttons.filter((b) => b.tagName === 'BUTTON') };
  fill(pane,
    h('h2', 'tools/call ', h('span.tool-name', clean(t.name)), t.title ? h('span.muted', ' ' + clean(t.title)) : null,
      h('span.tag.' + sup, modern(c) ? 'server decides' : 'taskSupport ' + sup)),
    t.description ? h('p.desc', clean(t.description)) : null,
    annotations(t),
    editor.el,
    h('div.buttons', buttons),
    out);
  paint(last);
}

// paint draws a call's state into the pane, if the pane shows its tool.
function paint(k) {
  if (!shown || !pane || !pane.isConnected || (k && k.key !== shown.key)) return;
  const busy = !!k && k.state === 'running';
  // One call at a time from a tool's pane, as in the terminal UI: a second would leave the
  // first's result to land over it. Cancel ends the one running.
  for (const b of shown.buttons) b.disabled = busy;
  const out = shown.out;
  if (!k) { fill(out); return; }
  const name = clean(k.tool);
  switch (k.state) {
    case 'invalid':
      fill(out, h('div.error', 'Fix the arguments first; nothing was sent.'), h('ul', k.errors.map((e) => h('li', clean(e)))));
      return;
    case 'running': {
      const bar = h('progress', { 'aria-label': 'progress' });
      const said = h('span.progress-text.muted', 'no progress from the server yet');
      const stop = h('button', { type: 'button', 'data-action': 'stop', disabled: k.stopped, on: { click: async () => {
        stop.disabled = true;
        k.stopped = true;
        try { await api(k.conn).stop(k.name); } catch (e) { toast(e.message, 'error'); }
      } } }, 'Cancel');
      const progress = h('div.call-progress', bar, ' ', said);
      const asks = h('div.call-asks', { hidden: true });
      k.view = { bar, said, progress, asks };
      showProgress(k);
      showAsks(k);
      fill(out, h('div.muted.calling', `Calling ${name}… `, stop), progress, asks);
      return;
    }
    case 'task':
      fill(out, h('div.muted', `${name} runs as a task: follow it in Tasks.`));
      return;
    case 'result':
      fill(out, h('h3', `Result of ${name} in ${k.took}`, k.plain ? h('span.warn', ' (the server ran it plainly, not as a task)') : null),
        resultView(k.result, k.outputSchema));
      return;
    case 'cancelled':
      fill(out, h('h3.warn', `Cancelled ${name}`), h('div.muted', clean(k.error)));
      return;
    default: {
      // A call that failed for its session (the server restarted and knows it no more,
      // or does not answer) is made again on a new one.
      const c = state.conns.get(k.conn);
      const lost = c && (c.info.unreachable || c.info.state === 'failed' || c.info.state === 'closed');
      fill(out, h('h3.error', `Error from ${name}`), h('div.error', clean(k.error)),
        lost ? h('div.buttons', reconnectButton(k.conn), h('span.muted', 'connects to the server anew; then call again')) : null);
    }
  }
}

function showProgress(k) {
  const v = k.view;
  const d = k.progress;
  if (!v || !d) return;
  const total = Number(d.total);
  if (total > 0) { v.bar.max = total; v.bar.value = Math.min(Number(d.progress) || 0, total); } else v.bar.removeAttribute('value');
  v.said.textContent = clean(`${total > 0 && Number.isFinite(total) ? Math.min(Number(d.progress) || 0, total) + '/' + total : d.progress}${d.message ? ' · ' + d.message : ''}`);
}

// showAsks says, under a running call, that the server waits on the user's answer to a
// request of its own (an elicitation or a sampling request, of no task), with the way
// to the Requests view: a call whose server asks before it answers waits on that
// answer, and its pane would say only that no progress came. In 2026-07-28 the server
// has answered input_required and holds nothing: mcpi waits, and sends the call again.
function showAsks(k) {
  const v = k.view;
  if (!v) return;
  const c = state.conns.get(k.conn);
  const n = waiting(c);
  v.asks.hidden = !n;
  v.progress.hidden = !!n && !k.progress;
  if (!n) return;
  const what = n === 1 ? 'a request' : `${n} requests`;
  const says = waiting(c, true)
    ? `The server asked for your answer to ${what} and holds nothing meanwhile; mcpi sends the call again once you answer. `
    : `The server waits on your answer to ${what} of its own; the call goes on once you answer. `;
  fill(v.asks, h('span.warn', says),
    h('button', { type: 'button', 'data-action': 'requests', on: { click: () => show('requests') } }, 'Answer in Requests'));
}

// waiting counts the server's requests of connection c that wait on the user and belong
// to no task (those of a task show in Tasks); with inputs, only the input requests of an
// input_required answer (2026-07-28).
function waiting(c, inputs) {
  let n = 0;
  if (c) for (const r of c.requests.values()) if (!r.settled && !r.task && !r.relatedTask && (!inputs || r.inputKey)) n++;
  return n;
}

// ttlOf reads the ttl field in milliseconds, or says what is wrong with it.
function ttlOf(input) {
  const raw = input.value.trim();
  if (input.validity && input.validity.badInput) return { error: 'ttl: not a number' };
  if (raw === '') return { ms: 0 };
  const v = Number(raw);
  if (!isFinite(v)) return { error: 'ttl: not a number' };
  if (v < 0) return { error: 'ttl: a negative ttl; give 0 or more seconds' };
  if (v * 1000 > Number.MAX_SAFE_INTEGER) return { error: 'ttl: out of range' };
  return { ms: Math.round(v * 1000) };
}

// start calls tool t of connection c with the form's arguments; ttlInput is set for a
// call as a task (2025-11-25).
async function start(c, t, editor, ttlInput) {
  const key = callKey(c.info.id, t.name);
  const prev = calls.get(key);
  if (prev && prev.state === 'running') return;
  const { value, errors } = editor.value();
  let ttl;
  if (ttlInput) {
    const r = ttlOf(ttlInput);
    if (r.error) errors.push(r.error);
    ttl = r.ms;
  }
  if (errors.length) {
    const k = { key, conn: c.info.id, tool: t.name, state: 'invalid', errors, args: prev && prev.args, ttl: prev && prev.ttl };
    calls.set(key, k);
    paint(k);
    return;
  }
  // getRandomValues, not randomUUID: the page may be served where it is not a secure context.
  const name = Array.from(crypto.getRandomValues(new Uint8Array(12)), (b) => b.toString(16).padStart(2, '0')).join('');
  const k = { key, conn: c.info.id, tool: t.name, name, state: 'running', args: value, ttl, progress: null, stopped: false, outputSchema: t.outputSchema };
  calls.set(key, k);
  running.set(name, k);
  paint(k);
  const started = performance.now();
  const p = { name: t.name, arguments: value, call: name };
  if (ttlInput) { p.task = true; p.ttl = ttl; }
  try {
    let r;
    try { r = await api(c.info.id).call(p); } finally { running.delete(name); }
    if (r.task) {
      k.state = 'task';
      toast(modern(c) ? `the server runs ${t.name} as a task` : `${t.name} runs as a task`);
      if (state.view === 'tools' && shown && shown.key === key && pane && pane.isConnected) {
        show('tasks', { key: r.task });
        return;
      }
    } else {
      window.__lastResult = r.result; // for the browser tests
      k.state = 'result';
      k.result = r.result;
      k.took = duration(performance.now() - started);
      k.plain = !!ttlInput && !modern(c);
    }
  } catch (err) {
    k.state = k.stopped ? 'cancelled' : 'error';
    k.error = err.message;
  }
  k.view = null;
  paint(k);
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
    fill(list, h('li.muted', c.info.state === 'connecting' ? 'Connecting…' : 'Not connected: reconnect (above, or in Connect).'));
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
  if (count) count.textContent = c.tools.length === 1 ? '1 tool' : `${c.tools.length} tools`;
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
  const k = running.get(d.call);
  if (!k) return;
  k.progress = { progress: d.progress, total: d.total, message: d.message };
  showProgress(k);
  showAsks(k);
});
on('request', (c) => {
  for (const k of running.values()) if (k.conn === c.info.id) showAsks(k);
});
on('snapshot', () => {
  for (const k of running.values()) showAsks(k);
});
on('conn', (c) => {
  // A failed call offers a reconnection while its session is lost, and no longer after.
  const k = shown && calls.get(shown.key);
  if (k && k.conn === c.info.id && k.state === 'error') paint(k);
});
on('tools', (c) => {
  if (c === activeConn() && state.view === 'tools' && root && root.isConnected) refresh(c, false);
});
