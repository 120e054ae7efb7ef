#!/usr/bin/env node
// Verifies the checks.json files written by `conformance server|client -o DIR`.
// Used by scripts/conformance.sh; plain Node (>= 18), no dependencies except the
// `yaml` package that the installed suite ships (only for --expected-failures).
//
//   node scripts/conformance-check.mjs --mode server|client --dir DIR
//        [--expect NAME]... [--log FILE] [--cli-exit NAME=CODE]...
//        [--expected-failures FILE] [--allow-warnings]
//
// A scenario passes when its checks.json exists, holds at least one SUCCESS,
// no FAILURE and (unless --allow-warnings) no WARNING, and (client mode) the
// CLI run for it exited 0. The CLI's own --expected-failures logic also counts
// WARNING as failure, and its client mode fails on a non-zero client exit or a
// timeout, which checks.json alone does not show: hence --cli-exit.
// Scenarios named in --expected-failures (YAML `server:`/`client:` lists) may
// fail; listed scenarios that pass are reported as stale, like the CLI does.
// Prints one line per failed scenario, then "conformance: N passed, M failed".
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

function usage(msg) {
  if (msg) console.error(`conformance-check: ${msg}`);
  console.error('usage: conformance-check.mjs --mode server|client --dir DIR [--expect NAME]... [--log FILE] [--cli-exit NAME=CODE]... [--expected-failures FILE] [--allow-warnings] [--suite-skips NAME]...');
  process.exit(2);
}

const opts = { expect: [], cliExit: new Map(), allowWarnings: false, suiteSkips: new Set() };
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; i++) {
  const a = argv[i];
  const val = () => {
    if (i + 1 >= argv.length) usage(`${a} needs a value`);
    return argv[++i];
  };
  switch (a) {
    case '--mode': opts.mode = val(); break;
    case '--dir': opts.dir = val(); break;
    case '--log': opts.log = val(); break;
    case '--expect': opts.expect.push(val()); break;
    case '--expected-failures': opts.baseline = val(); break;
    case '--allow-warnings': opts.allowWarnings = true; break;
    // A scenario the suite itself skips (every check SKIPPED, e.g. tasks-status-notifications
    // in 0.2.0-alpha.12, whose harness is pending) is reported as skipped, not failed. Once the
    // suite checks anything in it, it is judged like any other.
    case '--suite-skips': opts.suiteSkips.add(val()); break;
    case '--cli-exit': {
      const v = val();
      const eq = v.lastIndexOf('=');
      if (eq < 1) usage(`bad --cli-exit ${v}`);
      opts.cliExit.set(v.slice(0, eq), Number(v.slice(eq + 1)));
      break;
    }
    default: usage(`unknown argument ${a}`);
  }
}
if (opts.mode !== 'server' && opts.mode !== 'client') usage('--mode must be server or client');
if (!opts.dir) usage('--dir is required');

// Scenarios the run attempted: --expect, plus what the CLI log says it ran.
const expected = new Set(opts.expect);
if (opts.log && fs.existsSync(opts.log)) {
  const text = fs.readFileSync(opts.log, 'utf8');
  // Printed by `conformance server` for every scenario, before it runs.
  for (const m of text.matchAll(/^Running client scenario '([^']+)' against server:/gm)) expected.add(m[1]);
  for (const m of text.matchAll(/^=== Running scenario: (.+) ===$/gm)) expected.add(m[1].trim());
  // Printed by `conformance client` for every scenario.
  for (const m of text.matchAll(/^Starting scenario: (.+)$/gm)) expected.add(m[1].trim());
}

// Results: <dir>/[server-]<scenario>-<ISO timestamp with : and . as ->/checks.json
// (client scenario names such as auth/x create nested folders).
const TS = /-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/;
const found = new Map(); // scenario -> [file]
function walk(dir) {
  let entries;
  try { entries = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p);
    else if (e.name === 'checks.json') {
      let rel = path.relative(opts.dir, dir).split(path.sep).join('/');
      rel = rel.replace(TS, '');
      if (opts.mode === 'server') rel = rel.replace(/^server-/, '');
      if (!found.has(rel)) found.set(rel, []);
      found.get(rel).push(p);
    }
  }
}
walk(opts.dir);
for (const s of found.keys()) expected.add(s);
if (expected.size === 0) {
  console.error(`conformance-check: no scenario ran and no checks.json under ${opts.dir}`);
  console.log('conformance: 0 passed, 1 failed');
  process.exit(1);
}

let baseline = new Set();
if (opts.baseline) {
  const require = createRequire(import.meta.url);
  let YAML;
  const here = path.dirname(new URL(import.meta.url).pathname);
  search: for (const base of [process.cwd(), path.join(here, '..')]) {
    for (const suite of ['.tools/conformance', '.tools/conformance-alpha']) {
      try {
        YAML = createRequire(path.join(base, suite, 'package.json'))('yaml');
        break search;
      } catch { /* try next */ }
    }
  }
  if (!YAML) { try { YAML = require('yaml'); } catch { /* handled below */ } }
  if (!YAML) usage('cannot load the yaml package (run scripts/conformance-tools.sh)');
  const doc = YAML.parse(fs.readFileSync(opts.baseline, 'utf8')) ?? {};
  const list = doc[opts.mode] ?? [];
  if (!Array.isArray(list)) usage(`${opts.baseline}: '${opts.mode}' must be a list of scenario names`);
  baseline = new Set(list.map(String));
}

function summarize(checks, status) {
  return checks.filter((c) => c.status === status).map((c) => {
    const msg = c.errorMessage ?? c.details?.message;
    return msg ? `${c.id} (${String(msg).replace(/\s+/g, ' ').slice(0, 160)})` : c.id;
  });
}

const failed = [];
const stale = [];
const tolerated = [];
const suiteSkipped = [];
let passed = 0;
for (const scenario of [...expected].sort()) {
  const problems = [];
  const files = found.get(scenario) ?? [];
  if (files.length === 0) {
    problems.push('no checks.json written (scenario crashed or did not run)');
  } else {
    for (const file of files) {
      let checks;
      try {
        checks = JSON.parse(fs.readFileSync(file, 'utf8'));
        if (!Array.isArray(checks)) throw new Error('not a JSON array');
      } catch (err) {
        problems.push(`unreadable ${file}: ${err.message}`);
        continue;
      }
      const fails = summarize(checks, 'FAILURE');
      const warns = summarize(checks, 'WARNING');
      const successes = checks.filter((c) => c.status === 'SUCCESS').length;
      if (fails.length) problems.push(`FAILURE ${fails.join('; ')}`);
      if (warns.length && !opts.allowWarnings) problems.push(`WARNING ${warns.join('; ')}`);
      const allSkipped = checks.length > 0 && checks.every((c) => c.status === 'SKIPPED');
      if (allSkipped && opts.suiteSkips.has(scenario)) {
        suiteSkipped.push(scenario);
        continue;
      }
      if (successes === 0 && fails.length === 0) problems.push('no SUCCESS check (nothing was verified)');
    }
  }
  const code = opts.cliExit.get(scenario);
  if (code !== undefined && code !== 0) {
    problems.push(`conformance CLI exited ${code} (client exited non-zero, timed out, or a check failed; see the scenario's stderr.txt)`);
  }
  if (problems.length === 0 && suiteSkipped.at(-1) === scenario) continue;
  const listed = baseline.has(scenario);
  if (problems.length === 0) {
    if (listed) stale.push(scenario);
    passed++;
  } else if (listed) {
    tolerated.push(`${scenario}: ${problems.join(' | ')}`);
  } else {
    failed.push(`${scenario}: ${problems.join(' | ')}`);
  }
}

for (const line of tolerated) console.log(`EXPECTED-FAIL ${opts.mode} ${line}`);
for (const s of stale) console.log(`STALE ${opts.mode} ${s}: listed in ${opts.baseline} but passes now; remove it`);
for (const line of failed) console.log(`FAIL ${opts.mode} ${line}`);
for (const s of suiteSkipped) console.log(`SKIPPED-BY-SUITE ${opts.mode} ${s}: the suite checks nothing in it yet`);
const bad = failed.length + stale.length;
// Expected failures count as skipped; stale baseline entries as failed.
console.log(`conformance: ${passed - stale.length} passed, ${bad} failed` + (tolerated.length ? `, ${tolerated.length} skipped` : ``) +
  (suiteSkipped.length ? `, ${suiteSkipped.length} skipped by the suite` : ``));
process.exit(bad > 0 ? 1 : 0);
