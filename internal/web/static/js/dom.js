// Small DOM helpers. Every string from a server goes in as text (textContent, attribute
// values), never as markup.
import { conn as api } from './api.js';

// h builds an element: h('div.cls#id', {attrs, on: {click}}, ...children).
export function h(tag, props, ...children) {
  const m = /^([a-z0-9-]+)?((?:[.#][\w-]+)*)$/i.exec(tag);
  const el = document.createElement(m[1] || 'div');
  for (const part of (m[2] || '').match(/[.#][\w-]+/g) || []) {
    if (part[0] === '.') el.classList.add(part.slice(1));
    else el.id = part.slice(1);
  }
  if (props && (typeof props !== 'object' || props instanceof Node || Array.isArray(props))) {
    children.unshift(props);
    props = null;
  }
  for (const [k, v] of Object.entries(props || {})) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'on') {
      for (const [ev, fn] of Object.entries(v)) el.addEventListener(ev, fn);
    } else if (k === 'dataset') {
      Object.assign(el.dataset, v);
    } else if (k === 'value' || k === 'checked' || k === 'disabled' || k === 'selected') {
      el[k] = v;
    } else {
      el.setAttribute(k, v === true ? '' : String(v));
    }
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue;
    el.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
}

// enter is a keydown handler that runs fn on Enter (or Space): what a click on a list item
// does, from the keyboard.
export function enter(fn) {
  return (e) => {
    if ((e.key === 'Enter' || e.key === ' ') && !e.altKey && !e.ctrlKey && !e.metaKey && e.target === e.currentTarget) {
      e.preventDefault();
      fn();
    }
  };
}

// clear empties el and appends children.
export function fill(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// clean makes a server string safe to show: control characters become visible, as the
// terminal front ends show them (look.Safe): a C0 control as its control picture (ESC
// as ␛, a lone CR as ␍), DEL as ␡, a C1 or bidi control, or a line or paragraph
// separator, as its escape (\u202e). A character drawn as nothing (Unicode's
// Default_Ignorable_Code_Point: U+200B, U+00AD, U+FEFF, the tag characters, ...) is shown
// as its escape too (\u200b, \U000e0041), so that "add\u200b" cannot pass for "add",
// except what emoji and scripts need, as look.Safe keeps it: a joiner between two visible
// characters that are not ASCII, one variation selector after such a character or in a
// keycap, a subdivision flag's tags. Tab and line feed stay, and so does a line end of
// CRLF, as a line feed: an element that keeps white space shows the text's lines, and
// one that does not shows a space.
export function clean(s) {
  if (s === undefined || s === null) return '';
  s = String(s);
  if (!shownRe.test(s)) return s;
  const cps = Array.from(s);
  let out = '';
  for (let i = 0; i < cps.length;) {
    const [n, keep] = step(cps, i);
    if (keep) {
      for (let j = i; j < i + n; j++) out += cps[j];
    } else {
      const c = cps[i], code = c.codePointAt(0);
      if (c === '\r' && cps[i + 1] === '\n') out += '';
      else if (code < 0x20) out += String.fromCharCode(0x2400 + code);
      else if (code === 0x7f) out += '\u2421';
      else if (code > 0xffff) out += '\\U' + code.toString(16).padStart(8, '0');
      else out += '\\u' + code.toString(16).padStart(4, '0');
    }
    i += n;
  }
  return out;
}

// The characters clean may change, and those of them it shows wherever they stand.
const shownRe = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u2028-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\u{1bca0}-\u{1bca3}\u{1d173}-\u{1d17a}\u{e0000}-\u{e0fff}]/u;
const controlRe = /^[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]$/u;
const invisibleRe = /^[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f\u202a-\u202e\u2060-\u206f\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8\u{1bca0}-\u{1bca3}\u{1d173}-\u{1d17a}\u{e0000}-\u{e0fff}]$/u;
const selectorRe = /^[\ufe00-\ufe0f\u{e0100}-\u{e01ef}\u180b-\u180d\u180f]$/u;
const flagTagRe = /^[\u{e0030}-\u{e0039}\u{e0061}-\u{e007a}]$/u;

// visible: a character other than ASCII that clean keeps wherever it stands.
function visible(c) {
  return c !== undefined && c.codePointAt(0) >= 0x80 && c !== '\ufffd' && !(c.length === 1 && c >= '\ud800' && c <= '\udfff') &&
    !controlRe.test(c) && !invisibleRe.test(c);
}

// step is look's next: how many characters from cps[i] go together, and whether clean
// keeps them as they are. A kept invisible character depends only on kept neighbours,
// so that clean(clean(s)) is clean(s).
function step(cps, i) {
  const c = cps[i], code = c.codePointAt(0);
  if (code < 0x80) return [1, c === '\t' || c === '\n' || !controlRe.test(c)];
  if (code === 0x1f3f4) {
    let n = 0;
    while (n < 7 && flagTagRe.test(cps[i + 1 + n] || '')) n++;
    return [n > 0 && cps[i + 1 + n] === '\u{e007f}' ? n + 2 : 1, true];
  }
  if (code === 0x200c || code === 0x200d) {
    const p = cps[i - 1];
    const before = p !== undefined && selectorRe.test(p) ? step(cps, i - 1)[1] : visible(p);
    return [1, before && visible(cps[i + 1])];
  }
  if (selectorRe.test(c)) {
    const p = cps[i - 1];
    if (visible(p)) return [1, true];
    return [1, cps[i + 1] === '\u20e3' && p !== undefined && /^[0-9#*]$/.test(p)];
  }
  return [1, !controlRe.test(c) && !invisibleRe.test(c)];
}

// webURL returns u as a link the page may open (http: or https:, never javascript: or
// data:), or null.
export function webURL(u) {
  try {
    const p = new URL(u);
    if (p.protocol === 'https:' || p.protocol === 'http:') return p.href;
  } catch { /* not a URL */ }
  return null;
}

// loginLink is the link to the authorization page of a login a connection waits for,
// which the user opens in a new tab; mcpi connects by itself once the login is done.
export function loginLink(info) {
  const href = webURL(info.authURL);
  return h('span.login', { 'data-login': info.id },
    h('b.warn', 'authorization needed'), ': ',
    href ? h('a.auth-link', { href, target: '_blank', rel: 'noopener noreferrer' }, 'log in at the authorization server')
      : h('span.error', 'the login URL is not a web address: ' + clean(info.authURL)),
    h('span.muted', ' — mcpi goes on once you have logged in'));
}

// The connections being reconnected, whose Reconnect buttons wait for it.
const reconnecting = new Set();

// reconnectButton reconnects connection id: a new session with its server, which
// replaces the one before. It is offered where that session is over or its server does
// not answer (a server that restarted knows the session no more).
export function reconnectButton(id) {
  const b = h('button', { type: 'button', 'data-action': 'reconnect', 'data-conn': id }, 'Reconnect');
  const mark = (busy) => {
    for (const x of document.querySelectorAll(`button[data-action="reconnect"][data-conn="${CSS.escape(id)}"]`)) {
      x.disabled = busy;
      x.textContent = busy ? 'Reconnecting…' : 'Reconnect';
    }
  };
  b.addEventListener('click', async () => {
    reconnecting.add(id);
    mark(true);
    try {
      await api(id).reconnect();
      toast('reconnected');
    } catch (e) {
      toast(e.message, 'error');
    } finally {
      reconnecting.delete(id);
      mark(false);
    }
  });
  if (reconnecting.has(id)) { b.disabled = true; b.textContent = 'Reconnecting…'; }
  return b;
}

// duration renders milliseconds like the CLI: 850ms, 1.2s, 3m04s, 1h02m.
export function duration(ms) {
  if (ms === undefined || ms === null || !isFinite(ms)) return '-';
  if (ms < 0) ms = 0;
  if (ms < 1000) return Math.round(ms) + 'ms';
  const s = ms / 1000;
  if (s < 60) return s.toFixed(1) + 's';
  const m = Math.floor(s / 60);
  if (m < 60) return m + 'm' + String(Math.floor(s % 60)).padStart(2, '0') + 's';
  return Math.floor(m / 60) + 'h' + String(m % 60).padStart(2, '0') + 'm';
}

export const statusSymbol = {
  working: '◐', input_required: '?', completed: '✓', failed: '✗', cancelled: '⊘',
  // mcpi's own ends of a task: it is gone (forgotten by the server, or the server is
  // gone), its ttl ran out, or its outcome could not be had.
  gone: '∅', expired: '⌛', error: '✗',
};

export function statusText(s) {
  if (!s) return '…';
  return (statusSymbol[s] || '·') + ' ' + s;
}

export function terminal(s) {
  return s === 'completed' || s === 'failed' || s === 'cancelled' || s === 'gone' || s === 'expired' || s === 'error';
}

let toastTimer;
// toast shows a short message at the bottom of the page.
export function toast(msg, kind) {
  const el = document.getElementById('toast');
  el.textContent = clean(msg);
  el.className = 'show ' + (kind || '');
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { el.className = ''; }, kind === 'error' ? 6000 : 3000);
}
