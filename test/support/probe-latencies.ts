import { spawn } from 'node:child_process';
import { join } from 'node:path';

export interface ProbeLoop {
  name: string;
  method: string;
  path: string;
  body?: string;
  intervalMs: number;
}

/**
 * Repeats each loop's request from a process of its own (latency-probe.js) while `during` runs, so the test's own
 * work never inflates them; the latencies by loop name. `during` starts once the probe's loops run: started on a busy
 * machine, a probe can take longer to load than a short attack lasts.
 */
export async function probeLatencies(
  url: string,
  headers: Record<string, string>,
  loops: ProbeLoop[],
  during: () => Promise<unknown>,
): Promise<Record<string, Array<{ ms: number; status: number }>>> {
  const probe = spawn(process.execPath, [join(__dirname, 'latency-probe.js')], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  probe.stdout!.on('data', (chunk) => (output += chunk));
  const exited = new Promise((resolve) => probe.on('exit', resolve));
  const ready = new Promise<void>((resolve, reject) => {
    probe.stdout!.on('data', () => output.startsWith('ready\n') && resolve());
    void exited.then(() => reject(new Error(`the latency probe exited before its loops ran: ${output}`)));
  });
  probe.stdin!.write(`${JSON.stringify({ url, headers, loops })}\n`);
  try {
    await ready;
    await during();
  } finally {
    probe.stdin!.end();
    await exited;
  }
  return JSON.parse(output.slice('ready\n'.length));
}
