// Prompts: the list, arguments completed from the server, and the prompt's messages.
import { h, fill, clean, enter } from '../dom.js';
import { conn as api } from '../api.js';
import { contentView } from '../result.js';
import { jsonView } from '../json.js';
import { state, on, activeConn } from '../store.js';

let root = null;
let listEl = null;
let pane = null;

function form(c, p) {
  const values = {};
  const canComplete = c.info.capabilities && c.info.capabilities.completions;
  const inputs = (p.arguments || []).map((a) => {
    const list = h('datalist', { id: 'parg-' + a.name });
    const input = h('input', { name: a.name, list: 'parg-' + a.name, autocomplete: 'off' });
    input.addEventListener('input', async () => {
      values[a.name] = input.value;
      if (!canComplete) return;
      try {
        const r = await api(c.info.id).complete({ ref: { type: 'ref/prompt', name: p.name }, argument: { name: a.name, value: input.value }, context: { arguments: values } });
        fill(list, (r.completion && r.completion.values || []).slice(0, 100).map((v) => h('option', { value: clean(v) })));
      } catch { /* completion is a help, not a must */ }
    });
    return h('div.field', h('label', h('span.label', clean(a.title || a.name), a.required ? h('span.req', '*') : null), input, list),
      a.description ? h('span.help', clean(a.description)) : null);
  });
  const out = h('div.call-out');
  const err = h('div.error');
  fill(pane, h('h2', 'prompts/get ', h('span.tool-name', clean(p.name))), p.description ? h('p.desc', clean(p.description)) : null,
    h('form', {
      on: {
        submit: async (e) => {
          e.preventDefault();
          const missing = (p.arguments || []).filter((a) => a.required && !values[a.name]).map((a) => a.name);
          if (missing.length) { err.textContent = 'required: ' + missing.join(', '); return; }
          err.textContent = '';
          const args = {};
          for (const [k, v] of Object.entries(values)) if (v !== '') args[k] = v;
          try {
            const r = await api(c.info.id).prompt(p.name, args);
            fill(out, r.description ? h('p.muted', clean(r.description)) : null,
              (r.messages || []).map((m) => h('div.msg', h('b', clean(m.role) + ': '), contentView(m.content))),
              h('details', h('summary', 'raw'), jsonView(r, { open: 1 })));
          } catch (e2) {
            fill(out, h('p.error', clean(e2.message)));
          }
        },
      },
    }, inputs, err, h('button.primary', { type: 'submit', 'data-action': 'get' }, 'Get prompt')),
    out);
}

async function load(c) {
  try {
    const r = await api(c.info.id).prompts();
    if (c !== activeConn() || !listEl) return;
    fill(listEl, r.items.map((p) => h('li', { 'data-prompt': p.name, tabindex: 0, on: { click: () => form(c, p), keydown: enter(() => form(c, p)) } },
      h('span.name', clean(p.name)), p.description ? h('div.muted', clean(p.description).slice(0, 100)) : null)));
  } catch (err) {
    fill(listEl, h('li.error', clean(err.message)));
  }
}

function mount(el) {
  root = el;
  const c = activeConn();
  if (!c) { fill(el, h('p.muted', 'Connect to a server first.')); return; }
  listEl = h('ul.prompts', { 'aria-label': 'prompts' });
  pane = h('section.pane', h('p.muted', 'Pick a prompt.'));
  fill(el, h('div.split', h('aside.side', h('div.side-head', 'Prompts'), listEl), pane));
  load(c);
}

export const promptsView = { name: 'prompts', title: 'Prompts', mount };

on('list', (c, d) => {
  if (d.method === 'notifications/prompts/list_changed' && c === activeConn() && state.view === 'prompts' && root && root.isConnected) load(c);
});
