// Connect: a stdio command, a URL with headers, or a server of an mcpServers config; the
// servers connected now, with disconnect, reconnect and forget.
import { h, fill, clean, toast, loginLink } from '../dom.js';
import { connect, conn as api } from '../api.js';
import { state, on, selectConn } from '../store.js';

let root = null;
let table = null;

function render() {
  if (!root) return;
  table = h('div.servers');
  const kind = h('select', { name: 'kind', 'aria-label': 'How to reach the server' },
    h('option', { value: 'stdio' }, 'stdio command'),
    h('option', { value: 'url' }, 'Streamable HTTP URL'),
    h('option', { value: 'config' }, 'mcpServers config'),
    h('option', { value: 'demo' }, 'embedded demo server'));
  const stdio = h('input', { name: 'stdio', placeholder: 'npx -y @modelcontextprotocol/server-everything', size: 60 });
  const url = h('input', { name: 'url', placeholder: 'http://127.0.0.1:8080/mcp', size: 60 });
  const headers = h('textarea', { name: 'headers', rows: 2, placeholder: 'Authorization=Bearer …   (one K=V per line)' });
  const config = h('input', { name: 'config', placeholder: '~/.config/mcp.json', size: 40 });
  const server = h('input', { name: 'server', placeholder: 'entry name', size: 20 });
  const protocol = h('select', { name: 'protocol', 'aria-label': 'Protocol' },
    h('option', { value: 'auto' }, 'auto (2026-07-28 first)'),
    h('option', { value: '2026-07-28' }, '2026-07-28'),
    h('option', { value: '2025-11-25' }, '2025-11-25'));
  const fields = h('div.fields');
  const showFields = () => {
    fill(fields, {
      stdio: h('label', 'Command ', stdio),
      url: [h('label', 'URL ', url), h('label', 'Headers ', headers)],
      config: [h('label', 'Config file ', config), h('label', 'Server ', server)],
      demo: h('span.muted', 'The demo server built into mcpi, in this process.'),
    }[kind.value]);
  };
  kind.addEventListener('change', showFields);
  showFields();
  const go = h('button.primary', { type: 'submit' }, 'Connect');
  const form = h('form.connect', {
    on: {
      submit: async (e) => {
        e.preventDefault();
        const t = { protocol: protocol.value, kind: kind.value };
        if (kind.value === 'stdio') t.stdio = stdio.value.trim();
        if (kind.value === 'url') {
          t.url = url.value.trim();
          t.headers = headers.value.split('\n').map((l) => l.trim()).filter(Boolean);
        }
        if (kind.value === 'config') { t.config = config.value.trim(); t.server = server.value.trim(); }
        go.disabled = true;
        try {
          const r = await connect(t);
          selectConn(r.conn);
          toast('connected');
        } catch (err) {
          toast(err.message, 'error');
        } finally {
          go.disabled = false;
        }
      },
    },
  }, h('h2', 'Connect to a server'), h('label', 'Transport ', kind), fields, h('label', 'Protocol ', protocol), go);

  fill(root, form, table);
  renderTable();
}

// renderTable draws the servers connected now; the form above keeps what the user typed.
function renderTable() {
  if (!table) return;
  const rows = [...state.conns.values()].map((c) => {
    const i = c.info;
    const a = api(i.id);
    const act = (fn, msg) => async () => {
      try { await fn(); if (msg) toast(msg); } catch (err) { toast(err.message, 'error'); }
    };
    return h('tr', { 'data-conn': i.id },
      h('td', h('span.dot.' + i.state), ' ', i.state),
      h('td', h('a', { href: '#tools', on: { click: () => selectConn(i.id) } }, clean(i.server ? i.server.name + ' ' + i.server.version : i.name))),
      h('td.muted', clean(i.name)),
      h('td', clean(i.transport || '')),
      h('td', clean(i.protocol || '')),
      h('td.actions',
        i.state === 'connected' ? h('button', { on: { click: act(a.close, 'disconnected') } }, 'Disconnect') : null,
        h('button', { on: { click: act(a.reconnect, 'reconnected') } }, 'Reconnect'),
        i.state !== 'connected' ? h('button', { on: { click: act(a.forget) } }, 'Remove') : null),
      i.authURL ? h('td', loginLink(i)) : i.error ? h('td.error', clean(i.error)) : h('td'));
  });
  fill(table,
    h('h2', 'Servers'),
    rows.length ? h('table.list', h('thead', h('tr', ['State', 'Server', 'Target', 'Transport', 'Protocol', '', ''].map((x) => h('th', x)))), h('tbody', rows))
      : h('p.muted', 'None yet.'));
}

export const connectView = {
  name: 'connect',
  title: 'Connect',
  mount(el) { root = el; render(); },
};

on('conn', () => { if (root && root.isConnected && state.view === 'connect') renderTable(); });
on('snapshot', () => { if (root && root.isConnected && state.view === 'connect') renderTable(); });
