// Resources: the list, templates with completion of their variables, read, subscribe, and
// a subscribed resource read again when the server says it changed.
import { h, fill, clean, toast, enter } from '../dom.js';
import { conn as api } from '../api.js';
import { contentView } from '../result.js';
import { jsonView } from '../json.js';
import { state, on, activeConn } from '../store.js';

let root = null;
let pane = null;
let listEl = null;
const subscribed = new Map(); // conn id -> Set of uris
const updates = new Map();    // uri -> how many updates

function subs(c) {
  if (!subscribed.has(c.info.id)) subscribed.set(c.info.id, new Set());
  return subscribed.get(c.info.id);
}

async function read(c, uri) {
  fill(pane, h('p.muted', 'Reading ' + clean(uri) + '…'));
  try {
    const r = await api(c.info.id).read(uri);
    const s = subs(c);
    const canSub = c.info.capabilities && c.info.capabilities.resources && c.info.capabilities.resources.subscribe;
    fill(pane, h('h2', 'resources/read ', h('span.uri', clean(uri))),
      canSub ? h('div.buttons', s.has(uri)
        ? h('button', { type: 'button', 'data-action': 'unsubscribe', on: { click: async () => { try { await api(c.info.id).unsubscribe(uri); s.delete(uri); toast('unsubscribed'); read(c, uri); } catch (e) { toast(e.message, 'error'); } } } }, 'Unsubscribe')
        : h('button', { type: 'button', 'data-action': 'subscribe', on: { click: async () => { try { await api(c.info.id).subscribe(uri); s.add(uri); toast('subscribed'); read(c, uri); } catch (e) { toast(e.message, 'error'); } } } }, 'Subscribe'),
      updates.get(uri) ? h('span.muted.updates', ` ${updates.get(uri)} update${updates.get(uri) === 1 ? '' : 's'}`) : null) : null,
      (r.contents || []).map((x) => contentView({ type: 'resource', resource: x })),
      h('details', h('summary', 'raw'), jsonView(r, { open: 1 })));
  } catch (err) {
    fill(pane, h('h2.error', 'Could not read ' + clean(uri)), h('p.error', clean(err.message)));
  }
}

// templateForm fills a template's variables, completing each from the server.
function templateForm(c, t) {
  const names = [...(t.uriTemplate.matchAll(/\{[+#./;?&]?([^}]+)\}/g))].flatMap((m) => m[1].split(',').map((n) => n.replace(/[*]|:\d+$/g, '')));
  const values = {};
  const canComplete = c.info.capabilities && c.info.capabilities.completions;
  const inputs = names.map((n) => {
    const list = h('datalist', { id: 'complete-' + n });
    const input = h('input', { name: n, list: 'complete-' + n, autocomplete: 'off' });
    input.addEventListener('input', async () => {
      values[n] = input.value;
      if (!canComplete) return;
      try {
        const r = await api(c.info.id).complete({ ref: { type: 'ref/resource', uri: t.uriTemplate }, argument: { name: n, value: input.value }, context: { arguments: values } });
        fill(list, (r.completion && r.completion.values || []).slice(0, 100).map((v) => h('option', { value: clean(v) })));
      } catch { /* completion is a help, not a must */ }
    });
    return h('label', clean(n) + ' ', input, list);
  });
  const expand = () => t.uriTemplate.replace(/\{[+#./;?&]?([^}]+)\}/g, (_, v) => v.split(',').map((n) => encodeURIComponent(values[n.replace(/[*]|:\d+$/g, '')] || '')).join(','));
  fill(pane, h('h2', 'Template ', h('span.uri', clean(t.uriTemplate))), t.description ? h('p', clean(t.description)) : null,
    h('form', { on: { submit: (e) => { e.preventDefault(); read(c, expand()); } } }, inputs, h('button.primary', { type: 'submit' }, 'Read')));
}

async function load(c) {
  const a = api(c.info.id);
  const [rs, ts] = await Promise.allSettled([a.resources(), a.templates()]);
  if (c !== activeConn() || !listEl) return;
  const items = [];
  if (rs.status === 'fulfilled') {
    for (const r of rs.value.items) {
      items.push(h('li', { 'data-uri': r.uri, tabindex: 0, on: { click: () => read(c, r.uri), keydown: enter(() => read(c, r.uri)) } },
        h('span.name', { title: clean(r.name || r.uri) }, clean(r.name || r.uri)), h('div.muted.uri', { title: clean(r.uri) }, clean(r.uri))));
    }
  } else items.push(h('li.error', clean(rs.reason.message)));
  if (ts.status === 'fulfilled' && ts.value.items.length) {
    items.push(h('li.section', 'Templates'));
    for (const t of ts.value.items) {
      items.push(h('li', { 'data-template': t.uriTemplate, tabindex: 0, on: { click: () => templateForm(c, t), keydown: enter(() => templateForm(c, t)) } },
        h('span.name', { title: clean(t.name || t.uriTemplate) }, clean(t.name || t.uriTemplate)), h('div.muted.uri', { title: clean(t.uriTemplate) }, clean(t.uriTemplate))));
    }
  }
  fill(listEl, items);
}

function mount(el) {
  root = el;
  const c = activeConn();
  if (!c) { fill(el, h('p.muted', 'Connect to a server first.')); return; }
  listEl = h('ul.resources', { 'aria-label': 'resources' });
  pane = h('section.pane', h('p.muted', 'Pick a resource to read it.'));
  fill(el, h('div.split', h('aside.side', h('div.side-head', 'Resources'), listEl), pane));
  load(c).catch((err) => fill(listEl, h('li.error', clean(err.message))));
}

export const resourcesView = { name: 'resources', title: 'Resources', mount };

on('resource', (c, d) => {
  updates.set(d.uri, (updates.get(d.uri) || 0) + 1);
  toast('updated: ' + d.uri);
  if (c === activeConn() && state.view === 'resources' && root && root.isConnected) {
    const shown = pane && pane.querySelector('h2 .uri');
    if (shown && shown.textContent === clean(d.uri)) read(c, d.uri);
  }
});
on('list', (c, d) => {
  if (d.method === 'notifications/resources/list_changed' && c === activeConn() && state.view === 'resources' && root && root.isConnected) load(c);
});
