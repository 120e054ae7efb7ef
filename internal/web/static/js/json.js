// A JSON viewer: a collapsible tree with a copy button. Strings are shown as text, never
// as markup.
import { h, clean, toast } from './dom.js';

const OPEN_DEPTH = 2;
const MAX_CHILDREN = 500;

export function jsonView(value, opts = {}) {
  const tree = h('div.json-tree', node(value, opts.open ?? OPEN_DEPTH, 0));
  const copy = h('button.copy', {
    type: 'button', title: 'Copy as JSON',
    on: {
      click: async () => {
        try {
          await navigator.clipboard.writeText(JSON.stringify(value, null, 2));
          toast('copied');
        } catch {
          toast('the browser refused the clipboard', 'error');
        }
      },
    },
  }, 'Copy');
  return h('div.json', copy, tree);
}

function scalar(v) {
  if (v === null) return h('span.j-null', 'null');
  switch (typeof v) {
    case 'string': return h('span.j-str', JSON.stringify(clean(v).length > 2000 ? clean(v).slice(0, 2000) + '…' : clean(v)));
    case 'number': return h('span.j-num', String(v));
    case 'boolean': return h('span.j-bool', String(v));
  }
  return h('span', String(v));
}

function node(v, open, depth) {
  if (v === null || typeof v !== 'object') return scalar(v);
  const isArr = Array.isArray(v);
  const entries = isArr ? v.map((x, i) => [i, x]) : Object.entries(v);
  if (!entries.length) return h('span.j-punct', isArr ? '[]' : '{}');
  const body = h('div.j-body');
  let built = false;
  const build = () => {
    if (built) return;
    built = true;
    for (const [k, x] of entries.slice(0, MAX_CHILDREN)) {
      body.append(h('div.j-entry', isArr ? null : h('span.j-key', JSON.stringify(clean(k))), isArr ? null : ': ', node(x, open, depth + 1)));
    }
    if (entries.length > MAX_CHILDREN) body.append(h('div.muted', `… ${entries.length - MAX_CHILDREN} more`));
  };
  const d = h('details.j-node', h('summary', h('span.j-punct', isArr ? `[ ${entries.length} ]` : `{ ${entries.length} }`)), body);
  d.addEventListener('toggle', () => { if (d.open) build(); });
  if (depth < open) { d.open = true; build(); }
  return d;
}
