// The page's commands to the Go side: JSON POSTs under /api/ (the token travels in the
// cookie). A failed command rejects with an Error whose message is the sentence the
// server wrote, and whose rpc holds the JSON-RPC error, if any.

export async function post(path, body) {
  const res = await fetch('/api/' + path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify(body || {}),
    credentials: 'same-origin',
  });
  let data = null;
  try { data = await res.json(); } catch { /* not JSON */ }
  if (!res.ok) {
    const e = new Error((data && data.error && data.error.message) || res.status + ' ' + res.statusText);
    e.rpc = data && data.error;
    throw e;
  }
  return data;
}

export const conn = (id) => ({
  tools: () => post(id + '/tools'),
  call: (p) => post(id + '/call', p),
  stop: (call) => post(id + '/stop', { call }),
  cancel: (key) => post(id + '/cancel', { key }),
  answer: (p) => post(id + '/answer', p),
  resources: () => post(id + '/resources'),
  templates: () => post(id + '/templates'),
  read: (uri) => post(id + '/read', { uri }),
  subscribe: (uri) => post(id + '/subscribe', { uri }),
  unsubscribe: (uri) => post(id + '/unsubscribe', { uri }),
  prompts: () => post(id + '/prompts'),
  prompt: (name, args) => post(id + '/prompt', { name, arguments: args }),
  complete: (p) => post(id + '/complete', p),
  loglevel: (level) => post(id + '/loglevel', { level }),
  serverTasks: () => post(id + '/servertasks'),
  close: () => post(id + '/close'),
  reconnect: () => post(id + '/reconnect'),
  forget: () => post(id + '/forget'),
});

export const connect = (target) => post('connect', target);
