// A tool result (or a prompt message, a resource's contents) as a person reads it: text,
// images, audio, resource links and embedded resources, and structured content checked
// against the tool's output schema.
import { h, fill, clean } from './dom.js';
import { jsonView } from './json.js';

// Media types a data: URL may carry into the page.
const IMAGE = /^image\/(png|jpeg|gif|webp|bmp|avif)$/;
const AUDIO = /^audio\/(wav|x-wav|mpeg|mp3|ogg|webm|aac|flac)$/;
const B64 = /^[A-Za-z0-9+/]*={0,2}$/;

export function contentView(c) {
  if (!c || typeof c !== 'object') return h('div.content', jsonView(c));
  const el = itemView(c);
  const m = annotationMark(c.annotations);
  if (!m) return el;
  return h('div.annotated', h('div.annot', h('span.tag', { title: 'the server\'s annotations of the item below: whom it is for, and its priority (0 to 1)' }, m)), el);
}

function itemView(c) {
  switch (c.type) {
    case 'text':
      return h('pre.content.text', clean(c.text));
    case 'image':
      return imageView(c.mimeType, c.data) || h('div.content.error', 'an image of type ' + clean(c.mimeType) + ' that the page does not show');
    case 'audio':
      return audioView(c.mimeType, c.data) || h('div.content.error', 'audio of type ' + clean(c.mimeType) + ' that the page does not play');
    case 'resource_link':
      return h('div.content.link', '🔗 ', h('span.uri', clean(c.uri)), c.name ? h('span.muted', ' ' + clean(c.name)) : null,
        c.description ? h('div.muted', clean(c.description)) : null);
    case 'resource': {
      const r = c.resource && typeof c.resource === 'object' ? c.resource : {};
      const blob = typeof r.blob === 'string' && typeof r.text !== 'string';
      const data = typeof r.blob === 'string' ? r.blob : '';
      const valid = B64.test(data);
      return h('div.content.resource', h('div.muted', 'resource ', h('span.uri', clean(r.uri)), r.mimeType ? ' · ' + clean(r.mimeType) : '',
        blob && valid ? h('span.blob-size', ' · ' + size(decodedSize(data))) : null),
      blob ? blobView(r.mimeType, data, valid) : h('pre', clean(r.text)));
    }
  }
  return h('div.content', jsonView(c));
}

function imageView(mime, data) {
  if (!IMAGE.test(mime || '') || !B64.test(data || '')) return null;
  return h('figure.content.image', h('img', { src: `data:${mime};base64,${data}`, alt: 'image from the server (' + clean(mime) + ')' }), h('figcaption.muted', clean(mime)));
}

function audioView(mime, data) {
  if (!AUDIO.test(mime || '') || !B64.test(data || '')) return null;
  return h('figure.content.audio', h('audio', { controls: true, src: `data:${mime};base64,${data}` }), h('figcaption.muted', clean(mime)));
}

// TEXT is what a blob's MIME type says is text, which the page offers to show decoded.
const TEXT = /^(text\/[\w.+-]+|application\/(json|xml|[\w.-]+\+(json|xml)))(\s*;.*)?$/i;

// MAX_TEXT bounds the bytes of a blob decoded as text: a server's blob can be of any size.
const MAX_TEXT = 1 << 20;

// blobView shows a resource's binary contents (base64 data, valid or not): an image or
// audio the page shows as it shows such content, or the text a text blob decodes to,
// when asked for.
function blobView(mime, data, valid) {
  if (!valid) return h('div.error', `the server sent ${data.length} characters that are not base64`);
  const media = imageView(mime, data) || audioView(mime, data);
  if (media) return media;
  if (!TEXT.test(mime || '')) return null;
  const body = h('pre.blob-text');
  const d = h('details.blob', h('summary', 'decoded text'), body);
  d.addEventListener('toggle', () => {
    if (!d.open || body.firstChild) return;
    const n = decodedSize(data);
    let text;
    try {
      const bin = atob(data.slice(0, Math.ceil(Math.min(n, MAX_TEXT) / 3) * 4));
      const bytes = Uint8Array.from(bin, (ch) => ch.charCodeAt(0)).subarray(0, MAX_TEXT);
      text = new TextDecoder('utf-8').decode(bytes);
    } catch {
      fill(body, h('span.error', 'the data is not valid base64'));
      return;
    }
    fill(body, clean(text), n > MAX_TEXT ? h('span.muted', `\n… the first ${size(MAX_TEXT)} of ${size(n)}`) : null);
  });
  return d;
}

// decodedSize is the number of bytes base64 text s decodes to, its padding left out.
function decodedSize(s) {
  let n = s.length;
  while (n > 0 && s[n - 1] === '=') n--;
  return Math.floor(n * 3 / 4);
}

// size says n bytes as the CLI does: 56 bytes, 1.2 KiB, 3.4 MiB.
export function size(n) {
  if (n < 1024) return n === 1 ? '1 byte' : `${n} bytes`;
  if (n < 1 << 20) return (n / 1024).toFixed(1) + ' KiB';
  return (n / (1 << 20)).toFixed(1) + ' MiB';
}

// annotationMark says what of a content item's annotations is worth a mark, as the CLI
// marks it: an audience without the user ("audience: assistant") and a priority; '' for
// none.
export function annotationMark(a) {
  if (!a || typeof a !== 'object') return '';
  const parts = [];
  if (Array.isArray(a.audience) && a.audience.length && !a.audience.includes('user')) {
    const roles = a.audience.slice(0, 4).map((r) => clean(String(r).slice(0, 32)));
    if (a.audience.length > 4) roles.push('…'); // a server's list can be of any length
    parts.push('audience: ' + roles.join(', '));
  }
  if (typeof a.priority === 'number' && isFinite(a.priority)) parts.push('priority ' + String(Number(a.priority.toPrecision(3))));
  return parts.join('; ');
}

// resultView renders a CallToolResult; schema is the tool's outputSchema, if any;
// opts.raw false leaves out the raw result (shown beside it already).
export function resultView(res, schema, opts = {}) {
  const parts = [];
  if (res.isError) parts.push(h('div.is-error', 'isError: the tool reports a failure'));
  for (const c of res.content || []) parts.push(contentView(c));
  if (res.structuredContent !== undefined) {
    const budget = { steps: CHECK_STEPS };
    const problems = schema ? check(res.structuredContent, schema, schema, '', 0, budget) : [];
    let verdict = null;
    if (problems.length) verdict = h('span.bad', ' does not match the output schema');
    else if (budget.steps < 0) verdict = h('span.muted', ' is too large to check against the output schema');
    else if (schema) verdict = h('span.good', ' matches the output schema');
    parts.push(h('div.structured', h('h4', 'structuredContent', verdict),
    problems.length ? h('ul.problems', problems.slice(0, MAX_PROBLEMS).map((p) => h('li', clean(p)))) : null,
    jsonView(res.structuredContent)));
  } else if (schema) {
    parts.push(h('div.bad', 'the tool has an output schema but returned no structuredContent'));
  }
  if (opts.raw !== false) parts.push(h('details.raw', h('summary', 'raw result'), jsonView(res, { open: 1 })));
  return h('div.result', parts);
}

// The work a check may do (schemas and values visited, enum values compared) and the
// problems it reports: a server's output schema and result can be of any size, and an
// enum of a million values met at each of a million items would hold the page for good.
const CHECK_STEPS = 200000;
const MAX_PROBLEMS = 20;

// check is a small JSON Schema check (types, required, enum, bounds, items, properties,
// local $ref): enough to say whether structured content matches its output schema. It
// stops when budget.steps runs out (below zero then) or MAX_PROBLEMS are found, and
// returns the problems found (into out).
export function check(v, s, root, path, depth = 0, budget = { steps: CHECK_STEPS }, out = []) {
  if (!s || typeof s !== 'object' || depth > 32 || out.length >= MAX_PROBLEMS) return out;
  budget.steps -= 1 + (Array.isArray(s.enum) ? s.enum.length : 0) + (Array.isArray(s.required) ? s.required.length : 0);
  if (budget.steps < 0) return out;
  if (typeof s.$ref === 'string' && s.$ref.startsWith('#')) {
    let t = root;
    for (const k of s.$ref.slice(1).split('/').filter(Boolean)) t = t && t[decodeURIComponent(k)];
    return check(v, t, root, path, depth + 1, budget, out);
  }
  const at = path || '(top)';
  const types = Array.isArray(s.type) ? s.type : s.type ? [s.type] : [];
  const kind = v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'number' ? (Number.isInteger(v) ? 'integer' : 'number') : typeof v;
  if (types.length && !types.some((t) => t === kind || (t === 'number' && kind === 'integer'))) {
    out.push(`${at}: ${kind}, want ${types.join(' or ')}`);
    return out;
  }
  if (Array.isArray(s.enum)) {
    const j = JSON.stringify(v);
    if (!s.enum.some((e) => JSON.stringify(e) === j)) out.push(`${at}: not one of the allowed values`);
  }
  if (kind === 'object') {
    for (const k of Array.isArray(s.required) ? s.required : []) if (!(k in v) && out.length < MAX_PROBLEMS) out.push(`${at}: ${k} is missing`);
    const props = Object.entries(s.properties && typeof s.properties === 'object' ? s.properties : {});
    budget.steps -= props.length;
    for (const [k, sub] of props) if (budget.steps >= 0 && k in v) check(v[k], sub, root, path + '.' + k, depth + 1, budget, out);
  }
  if (kind === 'array' && s.items) v.forEach((x, i) => check(x, s.items, root, `${path}[${i}]`, depth + 1, budget, out));
  if ((kind === 'number' || kind === 'integer')) {
    if (s.minimum !== undefined && v < s.minimum) out.push(`${at}: below ${s.minimum}`);
    if (s.maximum !== undefined && v > s.maximum) out.push(`${at}: above ${s.maximum}`);
  }
  return out;
}
