// The page's state, kept by the event stream (main.js), and the bus the views listen on.
// Views import this module, never main.js, so that no module runs before what it uses.

export const state = {
  conns: new Map(), // id -> {info, tasks, requests, log, tools}
  active: null,     // the active connection's id
  view: 'tools',
  taskTTL: 600000,
  seq: 0,           // the last event applied
};

const listeners = new Map();

// on calls fn(conn, data) for every event of kind ("task", "request", "message", "conn",
// "list", "resource", "snapshot"; a server's log lines and progress are messages).
export function on(kind, fn) {
  if (!listeners.has(kind)) listeners.set(kind, new Set());
  listeners.get(kind).add(fn);
}

export function emit(kind, conn, data) {
  for (const fn of listeners.get(kind) || []) {
    try { fn(conn, data); } catch (e) { console.error(e); }
  }
}

export function activeConn() { return state.conns.get(state.active) || null; }

// Navigation, which main.js provides.
const nav = { show: () => {}, selectConn: () => {} };
export function setNavigation(n) { Object.assign(nav, n); }
export function show(name, arg) { nav.show(name, arg); }
export function selectConn(id) { nav.selectConn(id); }
