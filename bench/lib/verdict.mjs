// What makes a bench run evidence or not. A measurement taken against the wrong process, or one whose answers were
// errors, is not a slow result but no result: it fails the scenario with the reason, and `npm run bench` exits 1.
import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/** A run that measured nothing worth reporting; its message says what was seen (statuses, the value, the port). */
export class BenchFailure extends Error {}

/** Throws unless every answer of a load run was a success (< 400) and at least one came back. */
export function assertAnswered(label, run) {
  const statuses = Object.entries(run.statuses ?? {})
    .map(([code, n]) => `${code}: ${n}`)
    .join(', ');
  if (run.okRequests === 0 || run.errors > 0) {
    throw new BenchFailure(
      `${label} answered errors: ${run.okRequests} of ${run.requests} requests succeeded, ${run.errors} errors ` +
        `(statuses ${statuses || 'none'}); refusing to report it as a measurement`,
    );
  }
}

/** Throws unless a measured value (a rate, a baseline) is a positive finite number. */
export function assertMeasured(label, value) {
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new BenchFailure(`${label} measured ${value}: a rate of 0 (or none) is a broken run, not a result`);
  }
}

/** The inodes of the TCP sockets listening on `port` (IPv4 and IPv6), from /proc/net; null where there is no /proc. */
function listeningInodes(port) {
  const inodes = new Set();
  let isReadable = false;
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text;
    try {
      text = readFileSync(file, 'utf8');
      isReadable = true;
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // fields: sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode; st 0A is LISTEN
      if (fields.length < 10 || fields[3] !== '0A') continue;
      if (parseInt(fields[1].split(':').pop(), 16) === port) inodes.add(fields[9]);
    }
  }
  return isReadable ? inodes : null;
}

/** The socket inodes a process holds open. */
function socketInodesOf(pid) {
  const inodes = new Set();
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    try {
      const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
      if (match) inodes.add(match[1]);
    } catch {
      /* closed meanwhile */
    }
  }
  return inodes;
}

/**
 * Throws unless the process `pid` is the one listening on `port`: a server that answers on a port is not necessarily
 * the one the bench started (another one may have held it first). Returns false, without checking, where the system
 * has no /proc to ask; callers then rely on the other checks (nonces, statuses).
 */
export function assertListenerOwnedBy(label, port, pid) {
  const listening = listeningInodes(port);
  if (listening === null) return false;
  if (listening.size === 0) throw new BenchFailure(`${label}: nothing listens on port ${port}`);
  const owned = socketInodesOf(pid);
  if (![...listening].some((inode) => owned.has(inode))) {
    throw new BenchFailure(`${label}: port ${port} is held by another process than pid ${pid}; the load would measure it`);
  }
  return true;
}

/** Runs one scenario; a scenario that throws is recorded as failed, with the reason as its notes. */
export async function measureScenario(name, run, log) {
  try {
    return { ...(await run()), measuredAt: new Date().toISOString() };
  } catch (error) {
    log(`scenario ${name} failed: ${error.stack ?? error}`);
    return {
      failed: true,
      value: null,
      unit: null,
      baseline: null,
      ratio: null,
      p50Ms: null,
      p99Ms: null,
      notes: `failed: ${String(error.message ?? error).slice(0, 1000)}`,
      targetMet: false,
      details: {},
      measuredAt: new Date().toISOString(),
    };
  }
}

/** The failed scenarios of a run, each with its reason, in the order they were asked for. */
export function failuresOf(results, names) {
  return names
    .map((name) => ({ name, result: results.scenarios[name] }))
    .filter(({ result }) => result?.failed)
    .map(({ name, result }) => ({ name, reason: result.notes }));
}

/** The exit code of `npm run bench`: 1 when any scenario asked for failed, after saying why on stderr. */
export function exitCodeFor(failures, write = (line) => process.stderr.write(`${line}\n`)) {
  for (const { name, reason } of failures) write(`bench FAILED ${name}: ${reason}`);
  return failures.length > 0 ? 1 : 0;
}
