// Shared harness: start/stop processes, drive autocannon, sample RSS, shape results. Scenarios import only this
// (and events.mjs); each scenario is one file under bench/scenarios/.
import autocannon from 'autocannon';
import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import path from 'node:path';
import pg from 'pg';
import { assertAnswered, assertListenerOwnedBy, assertMeasured, BenchFailure } from './verdict.mjs';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

// BENCH_APP_DIR runs another build of toolcoach (e.g. a checkout of the previous commit, built) for before/after.
const APP_DIR = process.env.BENCH_APP_DIR ? path.resolve(process.env.BENCH_APP_DIR) : ROOT;

export const settings = {
  // A dedicated database and queue prefix, so a bench run never touches development or test data.
  databaseUrl: process.env.BENCH_DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/toolcoach_bench',
  redisUrl: process.env.REDIS_URL ?? 'redis://127.0.0.1:6379',
  queuePrefix: process.env.BENCH_QUEUE_PREFIX ?? 'tcbench',
  apiKey: process.env.TOOLCOACH_API_KEY ?? 'tc_bench_key',
  // Given TOOLCOACH_URL, scenarios load that stack instead of starting their own (RSS is then not measured).
  externalUrl: process.env.TOOLCOACH_URL ?? null,
  // Seconds per load run; BENCH_SCALE < 1 shortens every run (smoke test), > 1 lengthens them.
  scale: Number(process.env.BENCH_SCALE ?? 1),
};

export const seconds = (s) => Math.max(2, Math.round(s * settings.scale));

const children = new Set();

/** Spawns a process whose stdout/stderr go to the bench log; returns {pid, stop, exited}. */
export function spawnProcess(name, command, args, env, cwd = ROOT) {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let tail = '';
  let stdout = '';
  const stdoutListeners = new Set();
  const keep = (chunk) => {
    tail = (tail + chunk).slice(-4000);
    if (process.env.BENCH_VERBOSE) process.stderr.write(`[${name}] ${chunk}`);
  };
  child.stdout.on('data', (chunk) => {
    keep(chunk);
    // only the first lines matter (a baseline announces its port once); later output is not kept here
    if (stdout.length < 64_000) stdout += chunk;
    for (const listener of stdoutListeners) listener(stdout);
  });
  child.stderr.on('data', keep);
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const handle = {
    name,
    pid: child.pid,
    exited,
    tail: () => tail,
    /** Resolves with the first match of `pattern` in the process's stdout; rejects if it exits first. */
    waitForStdout(pattern) {
      return new Promise((resolve, reject) => {
        const check = (text) => {
          const match = pattern.exec(text);
          if (!match) return;
          stdoutListeners.delete(check);
          resolve(match);
        };
        stdoutListeners.add(check);
        check(stdout);
        void exited.then(() => {
          stdoutListeners.delete(check);
          reject(new BenchFailure(`${name} exited before it printed ${pattern}:\n${tail}`));
        });
      });
    },
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
      children.delete(handle);
    },
  };
  children.add(handle);
  return handle;
}

export async function stopAll() {
  await Promise.all([...children].map((c) => c.stop()));
}

/** Waits until GET url answers 200, or fails with the process's last output. */
export async function waitForHttp(url, handle, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  handle?.exited.then(() => (exited = true));
  while (Date.now() < deadline) {
    if (exited) throw new Error(`${handle.name} exited before it was ready:\n${handle.tail()}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      /* not listening yet */
    }
    await sleep(200);
  }
  throw new Error(`${url} not ready after ${timeoutMs} ms:\n${handle?.tail() ?? ''}`);
}

/**
 * A port the OS says is free now. Toolcoach takes its port from PORT and refuses 0, so the port is chosen here; if
 * another process takes it before toolcoach binds it, the ownership check after start-up catches that.
 */
export async function freePort() {
  const server = net.createServer();
  await new Promise((resolve, reject) => server.once('error', reject).listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Throws (after stopping it) unless the process started as `handle` is the one listening on `port`. */
async function assertOwnsPort(handle, port) {
  try {
    if (!assertListenerOwnedBy(handle.name, port, handle.pid)) log(`${handle.name}: no /proc here, port owner not checked`);
  } catch (error) {
    await handle.stop();
    throw error;
  }
}

/**
 * Starts toolcoach (`node dist/src/main.js`) with the given roles against the bench database, on a port the OS gave.
 * The API role is awaited on /readyz and then checked to be the process listening there; a worker-only process is
 * given 3 s to connect, unless `isAwaited` is false (the caller then watches it from the moment it is spawned).
 */
export async function startToolcoach({ roles, env = {}, isAwaited = true }) {
  const port = await freePort();
  // BENCH_PROFILE=1 writes a V8 CPU profile per process to bench/results/profiles (open it in Chrome DevTools).
  const profile = process.env.BENCH_PROFILE ? ['--cpu-prof', '--cpu-prof-dir=bench/results/profiles'] : [];
  // BENCH_NODE_FLAGS passes V8/Node flags to toolcoach's processes (e.g. --liftoff-only; see docs/perf.md)
  const flags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean);
  // started the way `npm start` starts it (scripts/start.sh: its memory settings), unless BENCH_APP_DIR is a build from
  // before that script existed
  const launcher = path.join(APP_DIR, 'scripts', 'start.sh');
  const [command, args] = existsSync(launcher)
    ? ['sh', [launcher, ...flags, ...profile]]
    : [process.execPath, [...flags, ...profile, 'dist/src/main.js']];
  const handle = spawnProcess(
    `toolcoach[${roles}]`,
    command,
    args,
    {
      NODE: process.execPath,
      DATABASE_URL: settings.databaseUrl,
      REDIS_URL: settings.redisUrl,
      QUEUE_PREFIX: settings.queuePrefix,
      ROLES: roles,
      PORT: String(port),
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      RATE_LIMIT_REQUESTS: '0',
      TOOLCOACH_DEV_KEY: settings.apiKey,
      NODE_ENV: 'development',
      ...env,
    },
    APP_DIR,
  );
  const url = `http://127.0.0.1:${port}`;
  if (roles.split(',').includes('api')) {
    await waitForHttp(`${url}/readyz`, handle);
    await assertOwnsPort(handle, port);
  } else if (isAwaited) await sleep(3000);
  return { ...handle, url };
}

/**
 * Starts a baseline server (bench/baselines/*.mjs). It listens on a port the OS picks, prints it, and answers /healthz
 * with its pid and the nonce given here; the harness checks both before any load goes to it.
 */
export async function startBaseline(file, env = {}) {
  const nonce = randomUUID();
  const handle = spawnProcess(`baseline:${file}`, process.execPath, [path.join(ROOT, 'bench', 'baselines', file)], {
    PORT: '0',
    BENCH_NONCE: nonce,
    REDIS_URL: settings.redisUrl,
    QUEUE_PREFIX: `${settings.queuePrefix}-baseline`,
    ...env,
  });
  const [, announced] = await handle.waitForStdout(/^bench-listening (\d+)$/m);
  const port = Number(announced);
  const url = `http://127.0.0.1:${port}`;
  await waitForHttp(`${url}/healthz`, handle);
  const health = await (await fetch(`${url}/healthz`)).json();
  if (health.pid !== handle.pid || health.nonce !== nonce) {
    await handle.stop();
    throw new BenchFailure(`${handle.name}: port ${port} answers as ${JSON.stringify(health)}, not as pid ${handle.pid}`);
  }
  await assertOwnsPort(handle, port);
  return { ...handle, url };
}

/** Samples VmRSS of a pid every 250 ms; stop() returns the peak in MB. */
export function sampleRss(pid) {
  let peakKb = 0;
  const read = () => {
    try {
      const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (match) peakKb = Math.max(peakKb, Number(match[1]));
    } catch {
      /* process gone */
    }
  };
  read();
  const timer = setInterval(read, 250);
  return {
    stop() {
      clearInterval(timer);
      read();
      return Math.round(peakKb / 1024);
    },
  };
}

/**
 * CPU time (user + system) a process has used so far, in ms, from /proc/<pid>/stat; null where there is no /proc.
 * Throughput on a shared machine swings with other load; CPU time per unit of work does not, so it is the number to
 * compare between builds.
 */
export function cpuTimeMs(pid) {
  const times = cpuTimesMs(pid);
  return times === null ? null : times.user + times.system;
}

/** User and system CPU time a process has used so far, in ms; null where there is no /proc (or no such process). */
function cpuTimesMs(pid) {
  let stat;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // fields after the ")" that closes the command name: state is field 3, utime 14 and stime 15 (clock ticks)
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return { user: (Number(fields[11]) * 1000) / CLOCK_TICKS_PER_S, system: (Number(fields[12]) * 1000) / CLOCK_TICKS_PER_S };
}

// USER_HZ: 100 on every Linux build Node supports (getconf CLK_TCK)
const CLOCK_TICKS_PER_S = 100;

/** Pids of every process whose command name is `name` (e.g. postgres, redis-server); empty where there is no /proc. */
function pidsNamed(name) {
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  return entries.filter((entry) => {
    if (!/^\d+$/.test(entry)) return false;
    try {
      return readFileSync(`/proc/${entry}/comm`, 'utf8').trim() === name;
    } catch {
      return false;
    }
  });
}

/** Busy and total CPU time of the whole machine so far, in ms (/proc/stat's first line); null where there is none. */
function machineCpuMs() {
  try {
    const fields = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).slice(1).map(Number);
    const total = fields.reduce((sum, ticks) => sum + ticks, 0);
    // idle and iowait
    const idle = fields[3] + (fields[4] ?? 0);
    return { busy: ((total - idle) * 1000) / CLOCK_TICKS_PER_S, total: (total * 1000) / CLOCK_TICKS_PER_S };
  } catch {
    return null;
  }
}

/**
 * Where a machine's CPU goes while a scenario runs: `parts` maps a name to a pid, or to a command name whose processes
 * are summed (all of Postgres' processes, Redis); `bench` is this process (the load generator). `stop(units)` returns
 * each part's CPU µs per unit of work and the share of it spent in the kernel (system time: sockets, wake-ups), what
 * the rest of the machine used, and how busy its cores were; null where there is no /proc. A process that exited
 * in between is not counted.
 */
export function cpuLedger(parts) {
  const read = () => {
    const reading = {};
    for (const [name, who] of Object.entries(parts)) {
      const pids = typeof who === 'number' ? [who] : pidsNamed(who);
      reading[name] = new Map(pids.map((pid) => [pid, cpuTimesMs(pid) ?? { user: 0, system: 0 }]));
    }
    return reading;
  };
  const before = read();
  const benchBefore = process.cpuUsage();
  const machineBefore = machineCpuMs();
  return {
    stop(units) {
      const machineAfter = machineCpuMs();
      if (!machineBefore || !machineAfter) return null;
      const after = read();
      const perUnit = (ms) => Number(((ms * 1000) / units).toFixed(1));
      const usPerUnit = {};
      const systemShare = {};
      let named = 0;
      for (const name of Object.keys(parts)) {
        let [user, system] = [0, 0];
        for (const [pid, value] of after[name]) {
          const start = before[name].get(pid) ?? { user: 0, system: 0 };
          [user, system] = [user + value.user - start.user, system + value.system - start.system];
        }
        usPerUnit[name] = perUnit(user + system);
        systemShare[name] = user + system > 0 ? Number((system / (user + system)).toFixed(2)) : 0;
        named += user + system;
      }
      const bench = process.cpuUsage(benchBefore);
      const benchMs = (bench.user + bench.system) / 1000;
      usPerUnit.bench = perUnit(benchMs);
      const busyMs = machineAfter.busy - machineBefore.busy;
      usPerUnit.other = perUnit(Math.max(0, busyMs - named - benchMs));
      const cores = machineAfter.total - machineBefore.total;
      return { usPerUnit, systemShare, busyShare: Number((busyMs / cores).toFixed(3)) };
    },
  };
}

/** The value at quantile q (0..1) of numbers sorted ascending. */
export function quantile(sorted, q) {
  if (sorted.length === 0) return null;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1));
  return sorted[index];
}

const round = (value, digits = 3) => (value === null || value === undefined ? null : Number(value.toFixed(digits)));

/**
 * A load run's figures from every answer's latency and status: answers of 400 and above, and requests that got no
 * answer (`unanswered`: connection errors, timeouts), are errors.
 */
function runSummary(latencies, statuses, elapsedS, unanswered) {
  latencies.sort((a, b) => a - b);
  const ok = Object.entries(statuses).reduce((sum, [code, n]) => (Number(code) < 400 ? sum + n : sum), 0);
  return {
    requests: latencies.length,
    okRequests: ok,
    reqPerSec: round(ok / elapsedS, 1),
    elapsedS: round(elapsedS, 2),
    errors: unanswered + (latencies.length - ok),
    statuses,
    p50Ms: round(quantile(latencies, 0.5), 3),
    p95Ms: round(quantile(latencies, 0.95), 3),
    p99Ms: round(quantile(latencies, 0.99), 3),
    maxMs: round(latencies[latencies.length - 1] ?? null, 3),
  };
}

/**
 * Runs autocannon (in this process; the server under test is another process) and keeps every response time, so
 * p50/p95/p99 are exact rather than autocannon's fixed percentile set. Non-2xx/3xx answers count as errors, and a run
 * with any error (or no answer) throws BenchFailure naming `label` and the statuses: it measured the wrong thing.
 */
export async function load({
  label,
  url,
  connections,
  durationS,
  amount,
  method = 'GET',
  headers = {},
  body,
  requests,
  overallRate,
  pipelining = 1,
}) {
  const latencies = [];
  const statuses = {};
  const instance = autocannon({
    url,
    connections,
    // with `amount`, exactly that many requests are sent and every answer is awaited (nothing cut off in flight)
    ...(amount ? { amount } : { duration: durationS }),
    method,
    headers,
    body,
    requests,
    overallRate,
    pipelining,
  });
  instance.on('response', (_client, statusCode, _bytes, responseTimeMs) => {
    latencies.push(responseTimeMs);
    statuses[statusCode] = (statuses[statusCode] ?? 0) + 1;
  });
  const started = Date.now();
  const result = await instance;
  const elapsedS = amount ? (Date.now() - started) / 1000 : durationS;
  const run = runSummary(latencies, statuses, elapsedS, result.errors + result.timeouts);
  assertAnswered(label ?? `${method} ${url}`, run);
  return run;
}

/**
 * Open-loop load: `rate` requests a second at evenly spaced times, whatever the answers (autocannon's `overallRate`
 * sends each second's quota as fast as it can at the start of the second, so a "paced" run measured the same queueing
 * as saturation). Each latency runs from the time the request was due, so a server that falls behind is charged for
 * the wait instead of being asked less (no coordinated omission). At most `connections` requests are in flight, each on
 * a kept-alive connection; errors throw BenchFailure as `load` does.
 *
 * The requests are written as bytes prepared once, on plain sockets, and the answers read only as far as their status
 * and length: node's HTTP client cost this box's second core so much (~40 µs a request) that at validate's half
 * capacity the server under test had one core left, and queued (p99 85-175 ms where this client measures 4-8 ms).
 */
export async function openLoad({ label, url, rate, durationS, warmupS = 2, connections, method = 'GET', headers = {}, body }) {
  const target = new URL(url);
  const payload = body === undefined ? Buffer.alloc(0) : Buffer.from(body);
  const requestBytes = Buffer.concat([
    Buffer.from(
      [
        `${method} ${target.pathname}${target.search} HTTP/1.1`,
        `host: ${target.host}`,
        ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
        ...(body === undefined ? [] : [`content-length: ${payload.length}`]),
        '',
        '',
      ].join('\r\n'),
    ),
    payload,
  ]);
  const intervalMs = 1000 / rate;
  let latencies = [];
  let statuses = {};
  let errors = 0;
  const idle = [];
  const waiting = [];
  let open = 0;

  /** A kept-alive connection that sends one request at a time and reads each answer to its end. */
  const connect = () => {
    open += 1;
    const socket = net.connect({ host: target.hostname, port: Number(target.port) });
    socket.setNoDelay(true);
    // the timeout is the socket's, set once per connection: a timer per request costs the generator CPU that, on a
    // small box, the server under test then lacks
    socket.setTimeout(10_000, () => socket.destroy(new Error('timeout')));
    const connection = { socket, current: null, buffer: Buffer.alloc(0) };
    socket.on('data', (chunk) => {
      connection.buffer = connection.buffer.length === 0 ? chunk : Buffer.concat([connection.buffer, chunk]);
      for (;;) {
        const answer = readAnswer(connection.buffer);
        if (answer === null || connection.current === null) return;
        connection.buffer = connection.buffer.subarray(answer.length);
        finish(connection, answer.status);
      }
    });
    const fail = () => {
      if (connection.current !== null) {
        errors += 1;
        const { resolve } = connection.current;
        connection.current = null;
        resolve();
      }
    };
    socket.on('error', fail);
    socket.on('close', () => {
      fail();
      open -= 1;
      const index = idle.indexOf(connection);
      if (index !== -1) idle.splice(index, 1);
      // a request waiting for a connection gets a new one
      if (waiting.length > 0 && open < connections) send(connect(), waiting.shift());
    });
    return connection;
  };
  const send = (connection, request) => {
    connection.current = request;
    connection.socket.write(requestBytes);
  };
  const finish = (connection, status) => {
    const { dueAt, resolve } = connection.current;
    latencies.push(performance.now() - dueAt);
    statuses[status] = (statuses[status] ?? 0) + 1;
    connection.current = null;
    resolve();
    if (waiting.length > 0) send(connection, waiting.shift());
    else idle.push(connection);
  };
  const dispatch = (dueAt) =>
    new Promise((resolve) => {
      const request = { dueAt, resolve };
      const connection = idle.pop() ?? (open < connections ? connect() : null);
      if (connection) send(connection, request);
      else waiting.push(request);
    });

  /** Sends `seconds` worth of requests at the rate; returns when the last has been answered. */
  const paced = async (seconds) => {
    const total = Math.max(1, Math.round(rate * seconds));
    const started = performance.now();
    const pending = [];
    for (let sent = 0; sent < total;) {
      const now = performance.now();
      // every request due by now goes out; the timer's own lateness is charged to the latencies, not hidden
      while (sent < total && started + sent * intervalMs <= now) {
        pending.push(dispatch(started + sent * intervalMs));
        sent += 1;
      }
      if (sent < total) await sleep(Math.max(0, Math.min(intervalMs, started + sent * intervalMs - performance.now())));
    }
    await Promise.all(pending);
    return (performance.now() - started) / 1000;
  };
  // Not counted: the first seconds open the connections and compile this loop. Measured against bare Fastify at
  // ~2,700 req/s, a cold run's p99 was 143 ms and a warm one's 3.8 ms: the generator's start, not the server.
  if (warmupS > 0) await paced(warmupS);
  latencies = [];
  statuses = {};
  errors = 0;
  const elapsedS = await paced(durationS);
  for (const connection of idle) connection.socket.destroy();
  const run = { ...runSummary(latencies, statuses, elapsedS, errors), offeredPerSec: rate };
  assertAnswered(label ?? `${method} ${url} (open loop, ${rate}/s)`, run);
  return run;
}

const HEAD_END = Buffer.from('\r\n\r\n');
const LINE_END = Buffer.from('\r\n');

/**
 * The status and byte length of the HTTP/1.1 answer at the start of `bytes`, or null while it is incomplete. Reads a
 * content-length body, a chunked one (without trailers), or none (1xx, 204, 304).
 */
export function readAnswer(bytes) {
  const headEnd = bytes.indexOf(HEAD_END);
  if (headEnd === -1) return null;
  const head = bytes.toString('latin1', 0, headEnd);
  const status = Number(head.slice(9, 12));
  const bodyStart = headEnd + 4;
  if (status < 200 || status === 204 || status === 304) return { status, length: bodyStart };
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) {
    const end = bodyStart + Number(length[1]);
    return bytes.length >= end ? { status, length: end } : null;
  }
  if (!/\r\ntransfer-encoding:[^\r]*chunked/i.test(head)) throw new BenchFailure(`answer without a length: ${head.slice(0, 200)}`);
  for (let at = bodyStart; ;) {
    const lineEnd = bytes.indexOf(LINE_END, at);
    if (lineEnd === -1) return null;
    const size = parseInt(bytes.toString('latin1', at, lineEnd), 16);
    // a chunk's data is followed by CRLF; the last (size 0) by the CRLF that ends the body
    const next = lineEnd + 2 + size + 2;
    if (bytes.length < next) return null;
    if (size === 0) return { status, length: next };
    at = next;
  }
}

/** A result in the shape of bench/results/latest.json; `details` holds the raw figures behind it. */
export function scenarioResult({
  value = null,
  unit = null,
  baseline = null,
  p50Ms = null,
  p99Ms = null,
  notes = '',
  targetMet = null,
  details = {},
}) {
  if (value !== null) assertMeasured(`the ${unit ?? 'value'}`, value);
  if (baseline !== null) assertMeasured('the baseline', baseline);
  const ratio = value !== null && baseline !== null ? round(value / baseline, 3) : null;
  return {
    value: round(value),
    unit,
    baseline: round(baseline),
    ratio,
    p50Ms: round(p50Ms, 3),
    p99Ms: round(p99Ms, 3),
    notes,
    targetMet,
    details,
  };
}

export async function withPg(fn, databaseUrl = settings.databaseUrl) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

export function adminUrl() {
  const url = new URL(settings.databaseUrl);
  url.pathname = '/postgres';
  return url.toString();
}

export function databaseName() {
  return new URL(settings.databaseUrl).pathname.slice(1);
}

export async function dropBenchDatabase() {
  const name = databaseName();
  if (!/^[a-z0-9_]+$/.test(name) || !name.includes('bench')) throw new Error(`refusing to drop ${name}: not a bench database`);
  await withPg((client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`), adminUrl());
}

/** Removes every queue key of the bench prefix, so a scenario starts from an empty queue. */
export async function clearQueues(prefix = settings.queuePrefix) {
  const { Redis } = await import('ioredis');
  const redis = new Redis(settings.redisUrl, { maxRetriesPerRequest: 1 });
  try {
    let cursor = '0';
    do {
      const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      if (keys.length > 0) await redis.unlink(...keys);
    } while (cursor !== '0');
  } finally {
    redis.disconnect();
  }
}

/** JSON request helper against a toolcoach URL with the bench key. */
export async function api(url, pathname, { method = 'GET', body, headers = {} } = {}) {
  const response = await fetch(`${url}${pathname}`, {
    method,
    headers: {
      authorization: `Bearer ${settings.apiKey}`,
      ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      ...headers,
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  let json;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = text;
  }
  if (response.status >= 400) throw new Error(`${method} ${pathname}: ${response.status} ${text.slice(0, 300)}`);
  return { status: response.status, headers: response.headers, json, text };
}

export const authHeaders = (extra = {}) => ({ authorization: `Bearer ${settings.apiKey}`, ...extra });

export function log(message) {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${message}\n`);
}

/**
 * Runs fn with a toolcoach API: the one given by TOOLCOACH_URL, or one this harness starts (and stops) with the
 * given roles and env. `rss()` is the API's peak RSS in MB while fn ran (null for an external stack).
 */
export async function withToolcoach({ roles = 'api', env = {} } = {}, fn) {
  if (settings.externalUrl) return fn({ url: settings.externalUrl, pid: null });
  const app = await startToolcoach({ roles, env });
  try {
    return await fn(app);
  } finally {
    await app.stop();
  }
}

export async function withBaseline(file, env, fn) {
  const server = await startBaseline(file, env);
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}
