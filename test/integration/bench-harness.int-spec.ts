import { spawnSync } from 'node:child_process';
import path from 'node:path';

// The bench harness is plain ESM run by node (bench/*.mjs); each case runs a short module against it in its own node
// process and reads what it printed and how it exited. Nothing here depends on timing, beyond the wide bounds of the
// open-loop cases.
const ROOT = path.resolve(__dirname, '..', '..');
const HARNESS = path.join(ROOT, 'bench', 'lib', 'harness.mjs');
const VERDICT = path.join(ROOT, 'bench', 'lib', 'verdict.mjs');

function runModule(source: string) {
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', source], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** A module body with an HTTP server on an OS port that answers every request with `status`, as `impostor`. */
const withImpostor = (status: number) => `
import http from 'node:http';
const impostor = http.createServer((request, response) => { request.resume(); response.writeHead(${status}); response.end('{}'); });
await new Promise((resolve) => impostor.listen(0, '127.0.0.1', resolve));
const impostorPort = impostor.address().port;
`;

describe('bench harness', () => {
  it('exits non-zero naming the baseline and its statuses when the baseline answered 401s', () => {
    const { status, stderr } = runModule(`
${withImpostor(401)}
const { load } = await import(${JSON.stringify(HARNESS)});
const { exitCodeFor, failuresOf, measureScenario } = await import(${JSON.stringify(VERDICT)});
const entry = await measureScenario('ingest', async () => {
  const run = await load({ label: 'ingest baseline', url: 'http://127.0.0.1:' + impostorPort + '/v1/events', amount: 20, connections: 2 });
  return { value: run.reqPerSec };
}, () => undefined);
impostor.close();
process.exitCode = exitCodeFor(failuresOf({ scenarios: { ingest: entry } }, ['ingest']));
`);
    expect(status).toBe(1);
    expect(stderr).toContain('bench FAILED ingest: failed: ingest baseline answered errors: 0 of 20 requests succeeded');
    expect(stderr).toContain('statuses 401: 20');
  });

  it('exits 0 when every scenario measured something', () => {
    const { status, stderr } = runModule(`
${withImpostor(202)}
const { load, scenarioResult } = await import(${JSON.stringify(HARNESS)});
const { exitCodeFor, failuresOf, measureScenario } = await import(${JSON.stringify(VERDICT)});
const entry = await measureScenario('ingest', async () => {
  const run = await load({ label: 'ingest baseline', url: 'http://127.0.0.1:' + impostorPort + '/v1/events', amount: 20, connections: 2 });
  return scenarioResult({ value: run.okRequests, unit: 'requests', baseline: 20 });
}, () => undefined);
impostor.close();
process.exitCode = exitCodeFor(failuresOf({ scenarios: { ingest: entry } }, ['ingest']));
`);
    expect(stderr).toBe('');
    expect(status).toBe(0);
  });

  it('refuses a result whose baseline or value measured 0', () => {
    const { status, stdout } = runModule(`
const { scenarioResult } = await import(${JSON.stringify(HARNESS)});
for (const figures of [{ value: 100, baseline: 0 }, { value: 0, baseline: 100 }]) {
  try {
    scenarioResult({ ...figures, unit: 'events/s' });
    console.log('accepted');
  } catch (error) {
    console.log(error.constructor.name + ': ' + error.message);
  }
}
`);
    expect(status).toBe(0);
    expect(stdout.trim().split('\n')).toEqual([
      'BenchFailure: the baseline measured 0: a rate of 0 (or none) is a broken run, not a result',
      'BenchFailure: the events/s measured 0: a rate of 0 (or none) is a broken run, not a result',
    ]);
  });

  it('tells the process listening on a port from another one', () => {
    const { status, stdout } = runModule(`
${withImpostor(200)}
const { assertListenerOwnedBy } = await import(${JSON.stringify(VERDICT)});
console.log('own: ' + assertListenerOwnedBy('me', impostorPort, process.pid));
try {
  assertListenerOwnedBy('server under test', impostorPort, process.ppid);
  console.log('other: accepted');
} catch (error) {
  console.log('other: ' + error.message);
}
impostor.close();
`);
    expect(status).toBe(0);
    const lines = stdout.trim().split('\n');
    expect(lines[0]).toBe('own: true');
    expect(lines[1]).toMatch(/^other: server under test: port \d+ is held by another process than pid \d+; the load would measure it$/);
  });

  it('charges CPU time to the process that spent it, per unit of work', () => {
    // a child that spends 400 ms of CPU (by its own CPU clock, however loaded the machine) once told to, and one that
    // sleeps; the ledger starts once both said they are up (so neither's start-up is charged, however slow the machine)
    // and stops once the busy one said it is done, while both still run
    const { status, stdout, stderr } = runModule(`
import { spawn } from 'node:child_process';
import { once } from 'node:events';
const { cpuLedger } = await import(${JSON.stringify(HARNESS)});
const start = (code) => spawn(process.execPath, ['-e', code], { stdio: ['pipe', 'pipe', 'ignore'] });
const busy = start('const spent = () => { const u = process.cpuUsage(); return u.user + u.system; }; process.stdin.once("data", () => { const end = spent() + 400000; let x = 0; while (spent() < end) for (let i = 0; i < 100000; i++) x += i; console.log("done", x > 0); }); console.log("up");');
const idle = start('setInterval(() => {}, 1000); console.log("up");');
await Promise.all([once(busy.stdout, 'data'), once(idle.stdout, 'data')]);
const ledger = cpuLedger({ busy: busy.pid, idle: idle.pid, nobody: 'no-such-command-name' });
busy.stdin.write('go');
await once(busy.stdout, 'data');
console.log(JSON.stringify(ledger.stop(100)));
busy.kill();
idle.kill();
`);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const ledger = JSON.parse(stdout.trim()) as { usPerUnit: Record<string, number>; busyShare: number };
    // 400 ms of CPU over 100 units is 4,000 µs each; /proc counts in 10 ms ticks, and starting the loop costs a little
    expect(ledger.usPerUnit.busy).toBeGreaterThanOrEqual(3_900);
    expect(ledger.usPerUnit.busy).toBeLessThan(6_000);
    expect(ledger.usPerUnit.idle).toBeLessThan(500);
    expect(ledger.usPerUnit.nobody).toBe(0);
    expect(ledger.busyShare).toBeGreaterThan(0);
    expect(ledger.busyShare).toBeLessThanOrEqual(1);
  });

  it('starts a baseline on a port the OS gave and checks it answers as the process it started', () => {
    const { status, stdout, stderr } = runModule(`
const { startBaseline, stopAll } = await import(${JSON.stringify(HARNESS)});
const server = await startBaseline('bare-json.mjs', { BASELINE_BODY: '{"a":1}' });
const health = await (await fetch(server.url + '/healthz')).json();
const doc = await (await fetch(server.url + '/doc')).text();
console.log(JSON.stringify({ url: server.url, isItsPid: health.pid === server.pid, doc }));
await stopAll();
`);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    const started = JSON.parse(stdout.trim().split('\n').pop()!) as { url: string; isItsPid: boolean; doc: string };
    expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(started.url).not.toBe('http://127.0.0.1:3900');
    expect(started.isItsPid).toBe(true);
    expect(started.doc).toBe('{"a":1}');
  });

  describe('openLoad (the open-loop run validate reports at half its capacity)', () => {
    /** A module body with a server that answers after `delayMs` and records when each request arrived. */
    const withRecorder = (delayMs: number) => `
import http from 'node:http';
const arrivals = [];
const recorder = http.createServer((request, response) => {
  arrivals.push(performance.now());
  request.resume();
  setTimeout(() => { response.writeHead(200); response.end('{}'); }, ${delayMs});
});
await new Promise((resolve) => recorder.listen(0, '127.0.0.1', resolve));
const recorderUrl = 'http://127.0.0.1:' + recorder.address().port + '/x';
const { openLoad } = await import(${JSON.stringify(HARNESS)});
`;

    it('spreads the requests over the run instead of sending each second quota at once, after an uncounted warm-up', () => {
      const { status, stdout, stderr } = runModule(`
${withRecorder(0)}
const run = await openLoad({ url: recorderUrl, rate: 50, durationS: 2, warmupS: 1, connections: 10 });
recorder.close();
const first = arrivals[0];
console.log(JSON.stringify({ requests: run.requests, errors: run.errors, arrived: arrivals.length, inFirst200Ms: arrivals.filter((t) => t - first < 200).length }));
`);
      expect(stderr).toBe('');
      expect(status).toBe(0);
      const run = JSON.parse(stdout.trim().split('\n').pop()!) as {
        requests: number;
        errors: number;
        arrived: number;
        inFirst200Ms: number;
      };
      // 50 warm-up requests reach the server but are not in the run's figures
      expect(run).toMatchObject({ requests: 100, errors: 0, arrived: 150 });
      // evenly spaced: about 10 of them in the first 200 ms; a quota sent at once would put 50 there
      expect(run.inFirst200Ms).toBeLessThan(30);
    });

    it('counts the time a request waited behind a slow server from when it was due', () => {
      const { status, stdout, stderr } = runModule(`
${withRecorder(100)}
const run = await openLoad({ url: recorderUrl, rate: 20, durationS: 1, warmupS: 0, connections: 1 });
recorder.close();
console.log(JSON.stringify(run));
`);
      expect(stderr).toBe('');
      expect(status).toBe(0);
      const run = JSON.parse(stdout.trim().split('\n').pop()!) as { requests: number; p50Ms: number; maxMs: number };
      // 20 requests due 50 ms apart on one connection answered in 100 ms each: the last waits ~1 s; a closed-loop
      // generator would report ~100 ms for every one
      expect(run.requests).toBe(20);
      expect(run.maxMs).toBeGreaterThan(800);
      expect(run.p50Ms).toBeGreaterThan(300);
    });

    it('reads answers of every framing only once they are whole, and where each ends', () => {
      const { status, stdout, stderr } = runModule(`
const { readAnswer } = await import(${JSON.stringify(HARNESS)});
const sized = 'HTTP/1.1 200 OK\\r\\nContent-Length: 5\\r\\n\\r\\nhello';
const chunked = 'HTTP/1.1 400 Bad Request\\r\\ntransfer-encoding: chunked\\r\\n\\r\\n3\\r\\nabc\\r\\n2\\r\\nde\\r\\n0\\r\\n\\r\\n';
const empty = 'HTTP/1.1 204 No Content\\r\\n\\r\\n';
const read = (text) => readAnswer(Buffer.from(text));
console.log(JSON.stringify({
  sized: read(sized),
  sizedPart: read(sized.slice(0, -1)),
  chunked: read(chunked),
  chunkedPart: read(chunked.slice(0, -2)),
  empty: read(empty),
  twoInOne: read(sized + empty),
  headPart: read('HTTP/1.1 200 OK\\r\\nContent-Le'),
}));
`);
      expect(stderr).toBe('');
      expect(status).toBe(0);
      expect(JSON.parse(stdout.trim())).toEqual({
        sized: { status: 200, length: 43 },
        sizedPart: null,
        chunked: { status: 400, length: 76 },
        chunkedPart: null,
        empty: { status: 204, length: 27 },
        twoInOne: { status: 200, length: 43 },
        headPart: null,
      });
    });

    it('exits non-zero naming the statuses when the server answers errors', () => {
      const { status, stderr } = runModule(`
${withImpostor(500)}
const { openLoad } = await import(${JSON.stringify(HARNESS)});
await openLoad({ label: 'validate at half capacity', url: 'http://127.0.0.1:' + impostorPort + '/x', rate: 20, durationS: 1, warmupS: 0, connections: 2 });
`);
      expect(status).not.toBe(0);
      expect(stderr).toContain('validate at half capacity answered errors');
      expect(stderr).toContain('statuses 500: 20');
    });
  });
});
