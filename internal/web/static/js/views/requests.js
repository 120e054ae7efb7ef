// Requests: what the server asks of the user. Elicitation as a form from its requested
// schema (URL elicitation opens the link), sampling as a reply the user writes; decline
// and cancel; a badge on the tab counts what waits.
import { h, fill, clean, toast, duration, webURL } from '../dom.js';
import { conn as api } from '../api.js';
import { schemaForm } from '../form.js';
import { jsonView } from '../json.js';
import { state, on, activeConn } from '../store.js';

let root = null;
let listEl = null;
let pane = null;
let selected = null;
let paneFor = null; // the id of the request the pane shows: it is not drawn again while it stays
let ticker = null;

function pending(c) {
  return [...c.requests.values()].sort((a, b) => Date.parse(a.received) - Date.parse(b.received));
}

function question(r) {
  const p = r.params || {};
  if (r.method === 'elicitation/create') return p.message || '';
  const m = (p.messages || []).map((x) => (x.content && x.content.text) || (Array.isArray(x.content) ? x.content.map((y) => y.text || '').join(' ') : '')).join(' ');
  return m;
}

function channel(r) {
  switch (r.channel) {
    case 'task': return 'as task ' + (r.task || '').slice(0, 8);
    case 'side channel': return 'for task ' + (r.relatedTask || '').slice(0, 8);
    case 'input': return r.relatedTask ? 'task input ' + r.relatedTask.slice(0, 8) : 'input ' + (r.inputKey || '');
  }
  return 'request';
}

function renderList() {
  const c = activeConn();
  if (!c || !listEl) return;
  const rs = pending(c);
  if (selected && !c.requests.has(selected)) selected = null;
  if (!selected && rs.length) selected = rs[0].id;
  const pick = (id) => {
    selected = id;
    renderList();
    renderPane();
    const li = listEl.querySelector(`li[data-request="${CSS.escape(id)}"]`);
    if (li) li.focus();
  };
  fill(listEl, rs.length ? rs.map((r) => h('li' + (r.id === selected ? '.selected' : ''), {
    'data-request': r.id, tabindex: 0, on: {
      click: () => pick(r.id),
      keydown: (e) => { if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); pick(r.id); } },
    },
  }, h('span.method', r.method === 'elicitation/create' ? '? elicitation' : '? sampling'),
  h('span.muted', ' ' + channel(r)),
  h('div.q', clean(question(r)).slice(0, 120)),
  h('span.muted.age', { dataset: { received: r.received } }, age(r.received)))) : h('li.muted', 'Nothing waits for you.'));
}

function age(received) { return duration(Date.now() - Date.parse(received)) + ' ago'; }

// ages moves the "N ago" of the requests listed on, in place (the list keeps its focus).
function ages() {
  if (!listEl) return;
  for (const el of listEl.querySelectorAll('.age')) {
    const t = age(el.dataset.received);
    if (el.textContent !== t) el.textContent = t;
  }
}

function renderPane(force) {
  const c = activeConn();
  const r = c && c.requests.get(selected);
  if (!pane) return;
  // What the user has typed stays: the pane is drawn again only for another request.
  if (!force && r && paneFor === r.id) return;
  paneFor = r ? r.id : null;
  if (!r) { fill(pane, h('p.muted', 'When the server asks for something, it shows here.')); return; }
  const a = api(c.info.id);
  const send = async (body, msg) => {
    try { await a.answer({ id: r.id, ...body }); toast(msg); } catch (err) { toast(err.message, 'error'); }
  };
  const p = r.params || {};
  const head = h('h2', r.method === 'elicitation/create' ? 'Answer the server\'s elicitation' : 'Answer the server\'s sampling',
    h('span.muted', ' · ' + channel(r)));
  if (r.method === 'elicitation/create' && p.mode === 'url') {
    const safe = webURL(p.url);
    fill(pane, head, h('p.question', clean(p.message)),
      safe ? h('p', 'The server asks you to open ', h('code', clean(safe))) : h('p.error', 'The server sent a URL the page will not open: ' + clean(p.url)),
      h('div.buttons',
        safe ? h('button.primary', { type: 'button', 'data-action': 'open', on: { click: () => { window.open(safe, '_blank', 'noopener,noreferrer'); send({ action: 'accept', content: {} }, 'opened the link'); } } }, 'Open the link') : null,
        h('button', { type: 'button', 'data-action': 'decline', on: { click: () => send({ action: 'decline' }, 'declined') } }, 'Decline'),
        h('button', { type: 'button', 'data-action': 'cancel', on: { click: () => send({ action: 'cancel' }, 'cancelled') } }, 'Cancel')),
      h('details', h('summary', 'request'), jsonView(p)));
    return;
  }
  if (r.method === 'elicitation/create') {
    const form = schemaForm(p.requestedSchema || { type: 'object' }, p.requestedSchema);
    const err = h('div.error');
    fill(pane, head, h('p.question', clean(p.message)), h('form.elicit', { on: { submit: (e) => e.preventDefault() } }, form.el), err,
      h('div.buttons',
        h('button.primary', { type: 'button', 'data-action': 'accept', on: { click: () => {
          const { value, errors } = form.value();
          if (errors.length) { err.textContent = errors.join('; '); return; }
          send({ action: 'accept', content: value }, 'accepted elicitation');
        } } }, 'Accept'),
        h('button', { type: 'button', 'data-action': 'decline', on: { click: () => send({ action: 'decline' }, 'declined elicitation') } }, 'Decline'),
        h('button', { type: 'button', 'data-action': 'cancel', on: { click: () => send({ action: 'cancel' }, 'cancelled elicitation') } }, 'Cancel')),
      h('details', h('summary', 'request'), jsonView(p)));
    return;
  }
  // Sampling: the messages, then the reply the user writes as the model.
  const reply = h('textarea', { name: 'reply', rows: 4, placeholder: 'the model\'s reply' });
  const model = h('input', { name: 'model', value: 'mcpi-web-user' });
  const err = h('div.error');
  fill(pane, head,
    p.systemPrompt ? h('p.muted', 'system: ' + clean(p.systemPrompt)) : null,
    h('div.messages', (p.messages || []).map((m) => h('div.msg', h('b', clean(m.role) + ': '),
      (Array.isArray(m.content) ? m.content : [m.content]).map((x) => (x && x.type === 'text' ? clean(x.text) : h('span.muted', '[' + clean(x && x.type) + ']')))))),
    h('p.muted', `maxTokens ${p.maxTokens}`),
    h('label', 'Reply ', reply), h('label', 'Model ', model), err,
    h('div.buttons',
      h('button.primary', { type: 'button', 'data-action': 'respond', on: { click: () => {
        if (!reply.value.trim()) { err.textContent = 'Reply is required'; return; }
        send({ action: 'respond', result: { role: 'assistant', model: model.value || 'mcpi-web-user', stopReason: 'endTurn', content: { type: 'text', text: reply.value } } }, 'answered sampling');
      } } }, 'Send reply'),
      h('button', { type: 'button', 'data-action': 'decline', on: { click: () => send({ action: 'decline' }, 'declined sampling') } }, 'Decline')),
    h('details', h('summary', 'request'), jsonView(p)));
}

function mount(el, arg) {
  root = el;
  if (arg && arg.id) selected = arg.id;
  const c = activeConn();
  if (!c) { fill(el, h('p.muted', 'Connect to a server first.')); return; }
  listEl = h('ul.requests', { 'aria-label': 'pending requests' });
  paneFor = null;
  pane = h('section.pane');
  fill(el, h('div.split', h('aside.side', h('div.side-head', 'Waiting for you'), listEl), pane));
  renderList();
  renderPane();
  clearInterval(ticker);
  ticker = setInterval(() => { if (root && root.isConnected) ages(); else clearInterval(ticker); }, 1000);
}

export const requestsView = { name: 'requests', title: 'Requests', mount };

on('request', (c) => {
  if (c !== activeConn() || state.view !== 'requests' || !root || !root.isConnected) return;
  renderList();
  renderPane();
});
on('snapshot', () => { if (state.view === 'requests' && root && root.isConnected) { renderList(); renderPane(); } });
