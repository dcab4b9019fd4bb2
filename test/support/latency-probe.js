'use strict';
// Measures request latencies from a process of its own, so that the test's own work (building and sending events)
// never inflates them. Reads one line of JSON on stdin:
//   {"url": "http://127.0.0.1:1234", "headers": {...}, "loops": [{"name", "method", "path", "body"?, "intervalMs"}]}
// prints "ready" on a line of its own once every loop is warmed up (the test starts its attack then: a probe still
// starting on a busy machine would miss its beginning and take too few samples), repeats each loop's request until
// stdin closes, then prints {"<name>": [{"ms", "status"}...]} and exits.

let input = '';
let isRunning = true;
let loops = [];
const results = {};

process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  input += chunk;
  const newline = input.indexOf('\n');
  if (loops.length === 0 && newline >= 0) start(JSON.parse(input.slice(0, newline)));
});
process.stdin.on('end', async () => {
  isRunning = false;
  await Promise.all(loops);
  process.stdout.write(JSON.stringify(results));
});

function start(config) {
  // The first fetch of a process loads its HTTP client, and each loop needs a connection of its own: neither is part
  // of any request's latency.
  const warmUp = () =>
    fetch(config.url + '/healthz')
      .then((response) => response.arrayBuffer())
      .catch(() => undefined);
  const warmedUp = warmUp().then(() => Promise.all(config.loops.map(warmUp)));
  void warmedUp.then(() => process.stdout.write('ready\n'));
  loops = config.loops.map(async (loop) => {
    const samples = (results[loop.name] = []);
    await warmedUp;
    while (isRunning) {
      const startedAt = performance.now();
      let status;
      try {
        const response = await fetch(config.url + loop.path, { method: loop.method, headers: config.headers, body: loop.body });
        await response.arrayBuffer();
        status = response.status;
      } catch {
        status = -1;
      }
      samples.push({ ms: performance.now() - startedAt, status });
      await new Promise((resolve) => setTimeout(resolve, loop.intervalMs));
    }
  });
}
