// Forms built from a JSON Schema (a tool's input schema, a form elicitation's requested
// schema): nested objects, arrays, enums with titles, nullable types, $ref/$defs,
// defaults, bounds. A schema part the form cannot draw (or one nested too deep) becomes a
// JSON text field for that part alone.
import { h, clean } from './dom.js';

const MAX_DEPTH = 8;

// resolve follows a local $ref ("#/$defs/X", "#/definitions/X", any JSON pointer into the
// root schema), at most a few hops, so that a cycle cannot hang the page.
function resolve(schema, root) {
  for (let hops = 0; schema && typeof schema === 'object' && typeof schema.$ref === 'string' && hops < 16; hops++) {
    const ref = schema.$ref;
    if (!ref.startsWith('#')) return {};
    let target = root;
    for (const raw of ref.slice(1).split('/').filter(Boolean)) {
      const key = decodeURIComponent(raw).replace(/~1/g, '/').replace(/~0/g, '~');
      target = target && typeof target === 'object' ? target[key] : undefined;
    }
    const { $ref, ...rest } = schema;
    schema = { ...(target || {}), ...rest };
  }
  return schema && typeof schema === 'object' ? schema : {};
}

// typesOf returns the schema's types, and whether null is one of them.
function typesOf(s) {
  let types = Array.isArray(s.type) ? s.type.slice() : s.type ? [s.type] : [];
  let nullable = types.includes('null');
  types = types.filter((t) => t !== 'null');
  for (const alt of s.anyOf || s.oneOf || []) {
    if (alt && alt.type === 'null') nullable = true;
  }
  return { types, nullable };
}

// choices returns the options of an enum ([{value, title}]), or null.
function choices(s) {
  if (Array.isArray(s.enum)) {
    const names = s.enumNames || s['x-enumNames'];
    return s.enum.map((v, i) => ({ value: v, title: names && names[i] !== undefined ? String(names[i]) : JSON.stringify(v) === `"${v}"` ? String(v) : JSON.stringify(v) }));
  }
  const alts = (s.oneOf || s.anyOf || []).filter((a) => a && a.type !== 'null');
  if (alts.length && alts.every((a) => a && 'const' in a)) {
    return alts.map((a) => ({ value: a.const, title: a.title !== undefined ? String(a.title) : String(a.const) }));
  }
  return null;
}

// nonNullAlt returns the one non-null alternative of an anyOf/oneOf, for "T or null".
function nonNullAlt(s) {
  const alts = (s.anyOf || s.oneOf || []).filter((a) => a && a.type !== 'null');
  return alts.length === 1 && !('const' in alts[0]) ? alts[0] : null;
}

let seq = 0;

// schemaForm returns {el, value()} for schema: value() gives {value, errors}; errors is
// an array of sentences (and the fields in error are marked).
export function schemaForm(schema, root, initial) {
  root = root || schema;
  const f = field(resolve(schema, root), root, 'arguments', true, 0, initial);
  return { el: f.el, value: () => { const errors = []; const value = f.get(errors); return { value: value === undefined ? {} : value, errors }; } };
}

function label(name, s, required) {
  return h('span.label', clean(s.title || name), required ? h('span.req', '*') : null);
}

function help(s) {
  const bits = [];
  if (s.description) bits.push(s.description);
  const t = typesOf(s).types.join(' | ');
  if (t) bits.push(t);
  if (s.minimum !== undefined || s.maximum !== undefined) bits.push(`${s.minimum ?? '…'} to ${s.maximum ?? '…'}`);
  if (s.minLength !== undefined && s.maxLength !== undefined) bits.push(`length ${s.minLength} to ${s.maxLength}`);
  else if (s.minLength !== undefined) bits.push(`at least ${s.minLength} character${s.minLength === 1 ? '' : 's'}`);
  else if (s.maxLength !== undefined) bits.push(`at most ${s.maxLength} character${s.maxLength === 1 ? '' : 's'}`);
  if (s.format) bits.push(s.format);
  return bits.length ? h('span.help', clean(bits.join(' · '))) : null;
}

// field draws one schema node; get(errors) reads its value (undefined: left out).
function field(s, root, name, required, depth, initial) {
  s = resolve(s, root);
  const alt = nonNullAlt(s);
  if (alt) {
    const inner = field({ ...resolve(alt, root), title: s.title || alt.title, description: s.description || alt.description, default: s.default }, root, name, required, depth, initial);
    return nullable(inner, s, name, initial);
  }
  const { types, nullable: isNull } = typesOf(s);
  const init = initial !== undefined ? initial : s.default;
  const opts = choices(s);
  let f;
  if (opts) f = enumField(s, name, required, opts, init);
  else if (depth >= MAX_DEPTH) f = jsonField(s, name, required, init);
  else if (types.length === 1 && types[0] === 'object' || !types.length && s.properties) f = objectField(s, root, name, required, depth, init);
  else if (types.length === 1 && types[0] === 'array') f = arrayField(s, root, name, required, depth, init);
  else if (types.length === 1 && (types[0] === 'number' || types[0] === 'integer')) f = numberField(s, name, required, types[0], init);
  else if (types.length === 1 && types[0] === 'boolean') f = boolField(s, name, required, init);
  else if (types.length === 1 && types[0] === 'string') f = stringField(s, name, required, init);
  else f = jsonField(s, name, required, init);
  return isNull ? nullable(f, s, name, initial) : f;
}

// nullable adds a "null" switch to a field.
function nullable(f, s, name, initial) {
  const box = h('input', { type: 'checkbox', checked: initial === null, 'aria-label': name + ' is null' });
  const wrap = h('div.nullable', f.el, h('label.null', box, ' null'));
  const sync = () => f.el.classList.toggle('disabled', box.checked);
  box.addEventListener('change', sync);
  sync();
  return { el: wrap, get: (errors) => (box.checked ? null : f.get(errors)) };
}

function row(name, s, required, control, extra) {
  const err = h('span.err');
  const el = h('div.field', { 'data-field': name }, h('label', label(name, s, required), control), help(s), extra, err);
  return {
    el, err: (msg, errors) => {
      err.textContent = msg || '';
      el.classList.toggle('invalid', !!msg);
      if (msg) errors.push((s.title || name) + ': ' + msg);
    },
  };
}

function stringField(s, name, required, init) {
  const multiline = (s.maxLength || 0) > 200 || s.format === 'textarea';
  const input = multiline ? h('textarea', { name, rows: 3 }) : h('input', { name, type: s.format === 'email' ? 'email' : s.format === 'uri' ? 'url' : 'text' });
  if (init !== undefined && init !== null) input.value = String(init);
  if (s.minLength !== undefined) input.minLength = s.minLength;
  if (s.maxLength !== undefined) input.maxLength = s.maxLength;
  const r = row(name, s, required, input);
  return {
    el: r.el,
    get(errors) {
      const v = input.value;
      let msg = '';
      if (v === '') {
        if (required) msg = 'required';
        r.err(msg, errors);
        return required ? '' : undefined;
      }
      if (s.minLength !== undefined && v.length < s.minLength) msg = `at least ${s.minLength} characters`;
      else if (s.maxLength !== undefined && v.length > s.maxLength) msg = `at most ${s.maxLength} characters`;
      else if (s.pattern) {
        try { if (!new RegExp(s.pattern, 'u').test(v)) msg = 'does not match ' + s.pattern; } catch { /* a pattern JS cannot read */ }
      }
      r.err(msg, errors);
      return v;
    },
  };
}

// A JSON number, as the user may type it.
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

// numberField is a text field, not type=number: a number field hands the page an empty
// value for "abc" or 1e400, which would read as "required"; this one says what is wrong.
function numberField(s, name, required, type, init) {
  const input = h('input.number', { name, type: 'text', autocomplete: 'off', spellcheck: 'false' });
  if (init !== undefined && init !== null) input.value = String(init);
  const r = row(name, s, required, input);
  return {
    el: r.el,
    get(errors) {
      const raw = input.value.trim();
      if (raw === '') {
        r.err(required ? 'required' : '', errors);
        return undefined;
      }
      const v = Number(raw);
      let msg = '';
      if (!NUMBER.test(raw) || isNaN(v)) msg = `not a number: ${raw.length > 40 ? raw.slice(0, 40) + '…' : raw}`;
      else if (!isFinite(v)) msg = 'out of range: too large for a number';
      else if (type === 'integer' && !Number.isInteger(v)) msg = 'must be a whole number';
      else if (type === 'integer' && !Number.isSafeInteger(v)) msg = 'out of range: too large for a whole number';
      else if (s.minimum !== undefined && v < s.minimum) msg = `at least ${s.minimum}`;
      else if (s.maximum !== undefined && v > s.maximum) msg = `at most ${s.maximum}`;
      else if (s.exclusiveMinimum !== undefined && v <= s.exclusiveMinimum) msg = `more than ${s.exclusiveMinimum}`;
      else if (s.exclusiveMaximum !== undefined && v >= s.exclusiveMaximum) msg = `less than ${s.exclusiveMaximum}`;
      r.err(msg, errors);
      return v;
    },
  };
}

function boolField(s, name, required, init) {
  if (required) {
    const box = h('input', { name, type: 'checkbox', checked: init === true });
    const r = row(name, s, required, box);
    return { el: r.el, get: () => box.checked };
  }
  const sel = h('select', { name },
    h('option', { value: '' }, '(not set)'), h('option', { value: 'true' }, 'true'), h('option', { value: 'false' }, 'false'));
  if (init === true || init === false) sel.value = String(init);
  const r = row(name, s, required, sel);
  return { el: r.el, get: () => (sel.value === '' ? undefined : sel.value === 'true') };
}

function enumField(s, name, required, opts, init) {
  const sel = h('select', { name },
    required && init !== undefined ? null : h('option', { value: '' }, required ? '(choose)' : '(not set)'),
    opts.map((o, i) => h('option', { value: String(i) }, clean(o.title))));
  const at = opts.findIndex((o) => JSON.stringify(o.value) === JSON.stringify(init));
  if (at >= 0) sel.value = String(at);
  else if (required) sel.value = '';
  const r = row(name, s, required, sel);
  return {
    el: r.el,
    get(errors) {
      if (sel.value === '') {
        r.err(required ? 'required' : '', errors);
        return undefined;
      }
      r.err('', errors);
      return opts[Number(sel.value)].value;
    },
  };
}

function objectField(s, root, name, required, depth, init) {
  const props = s.properties || {};
  const req = new Set(Array.isArray(s.required) ? s.required : []);
  const children = Object.entries(props).map(([k, sub]) => [k, field(sub, root, k, req.has(k), depth + 1, init && typeof init === 'object' ? init[k] : undefined)]);
  const body = h('div.object', children.map(([, f]) => f.el));
  const el = depth === 0 ? body : h('fieldset.field', { 'data-field': name }, h('legend', label(name, s, required)), help(s), body);
  if (!children.length && s.additionalProperties !== false && depth > 0) {
    return jsonField(s, name, required, init);
  }
  return {
    el,
    get(errors) {
      const out = {};
      let any = false;
      for (const [k, f] of children) {
        const v = f.get(errors);
        if (v !== undefined) { out[k] = v; any = true; }
      }
      return any || required || depth === 0 ? out : undefined;
    },
  };
}

function arrayField(s, root, name, required, depth, init) {
  const items = resolve(s.items || {}, root);
  const list = h('div.items');
  const entries = [];
  const add = (v) => {
    const f = field(items, root, name + '[' + entries.length + ']', true, depth + 1, v);
    const entry = { f, el: null };
    entry.el = h('div.item', f.el, h('button.remove', {
      type: 'button', title: 'Remove this item',
      on: { click: () => { entries.splice(entries.indexOf(entry), 1); entry.el.remove(); } },
    }, '×'));
    entries.push(entry);
    list.append(entry.el);
  };
  if (Array.isArray(init)) init.forEach(add);
  const err = h('span.err');
  const el = h('fieldset.field.array', { 'data-field': name }, h('legend', label(name, s, required)), help(s), list,
    h('button.add', { type: 'button', on: { click: () => add(undefined) } }, '+ item'), err);
  return {
    el,
    get(errors) {
      const out = entries.map((e) => e.f.get(errors));
      let msg = '';
      if (s.minItems !== undefined && out.length < s.minItems) msg = `at least ${s.minItems} items`;
      else if (s.maxItems !== undefined && out.length > s.maxItems) msg = `at most ${s.maxItems} items`;
      err.textContent = msg;
      if (msg) errors.push((s.title || name) + ': ' + msg);
      return out.length || required ? out : undefined;
    },
  };
}

// jsonField takes any JSON for a schema part the form does not draw.
function jsonField(s, name, required, init) {
  const ta = h('textarea.json', { name, rows: 3, spellcheck: 'false', placeholder: 'JSON' });
  if (init !== undefined) ta.value = JSON.stringify(init, null, 2);
  const r = row(name, s, required, ta);
  return {
    el: r.el,
    get(errors) {
      const raw = ta.value.trim();
      if (raw === '') {
        r.err(required ? 'required' : '', errors);
        return undefined;
      }
      try {
        const v = JSON.parse(raw);
        r.err('', errors);
        return v;
      } catch (e) {
        r.err('not valid JSON: ' + e.message, errors);
        return undefined;
      }
    },
  };
}

// argumentsEditor is a schema form with a raw-JSON mode. The raw text is the user's own
// while they type: nothing rewrites it. Switching back to the form reads it, and stays
// in raw mode (saying why) when it is not a JSON object.
export function argumentsEditor(schema, initial) {
  let mode = 'form';
  let form = schemaForm(schema || { type: 'object' }, schema, initial);
  const raw = h('textarea.raw', { rows: 10, spellcheck: 'false', 'aria-label': 'arguments as JSON' });
  const rawErr = h('span.err');
  const formBox = h('div.form-box', form.el);
  const rawBox = h('div.raw-box', { hidden: true }, raw, rawErr);
  const toggle = h('button.mode', { type: 'button' }, 'Raw JSON');
  toggle.addEventListener('click', () => {
    if (mode === 'form') {
      const { value } = form.value();
      raw.value = JSON.stringify(value, null, 2);
      mode = 'raw';
    } else {
      let v;
      try { v = JSON.parse(raw.value || '{}'); } catch (e) { rawErr.textContent = 'not valid JSON (' + e.message + '): fix it to go back to the form'; return; }
      if (!v || typeof v !== 'object' || Array.isArray(v)) { rawErr.textContent = 'the arguments must be a JSON object'; return; }
      rawErr.textContent = '';
      form = schemaForm(schema || { type: 'object' }, schema, v);
      formBox.replaceChildren(form.el);
      mode = 'form';
    }
    formBox.hidden = mode !== 'form';
    rawBox.hidden = mode !== 'raw';
    toggle.textContent = mode === 'form' ? 'Raw JSON' : 'Form';
  });
  raw.addEventListener('input', () => { rawErr.textContent = ''; });
  return {
    el: h('div.args', h('div.mode-bar', toggle), formBox, rawBox),
    // value returns {value, errors}.
    value() {
      if (mode === 'form') return form.value();
      try {
        const v = JSON.parse(raw.value || '{}');
        if (!v || typeof v !== 'object' || Array.isArray(v)) return { value: null, errors: ['the arguments must be a JSON object'] };
        return { value: v, errors: [] };
      } catch (e) {
        rawErr.textContent = 'not valid JSON: ' + e.message;
        return { value: null, errors: ['the arguments are not valid JSON: ' + e.message] };
      }
    },
  };
}

export function uid(prefix) { return (prefix || 'f') + (++seq); }
