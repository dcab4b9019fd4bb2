// What a description costs an agent: its length in tokens of o200k_base, the encoding of OpenAI's GPT-4o, GPT-4.1, o1,
// o3 and o4 families (docs/description-cost.md). The ranks ship inside gpt-tokenizer: counting never goes online.
//
// Counting runs on a worker thread, started on the first count and ended after a minute without one. Loading the ranks
// takes ~400 ms of synchronous work on a 2-core box and ~70 MB of resident memory: on the event loop, the first
// registration froze every request of every project for that long (the bounded-registration e2e saw /healthz at
// 353-393 ms); loaded at start-up, every API process carried the memory whether it ever made a new version or not (the
// ingest bench's API went from ~210 to 316 MB). Counts are only needed when a new version is written and by the
// nightly, both rare.

import { Worker } from 'node:worker_threads';
import { renderDescription } from './description-renderer';

/** The encoding every stored token count is in. */
export const TOKEN_ENCODING = 'o200k_base';

const IDLE_MS = 60_000;
const TOKENIZER_MODULE = require.resolve('gpt-tokenizer/cjs/encoding/o200k_base');
const THREAD_SOURCE = `
const { parentPort } = require('node:worker_threads');
const { countTokens } = require(${JSON.stringify(TOKENIZER_MODULE)});
parentPort.on('message', ({ id, texts }) => parentPort.postMessage({ id, counts: texts.map((text) => countTokens(text)) }));
`;

interface Pending {
  resolve: (counts: number[]) => void;
  reject: (error: Error) => void;
}

class TokenCounterThread {
  private worker: Worker | undefined;
  private nextId = 0;
  private readonly pending = new Map<number, Pending>();
  private idleTimer: NodeJS.Timeout | undefined;

  count(texts: readonly string[]): Promise<number[]> {
    if (texts.length === 0) return Promise.resolve([]);
    const worker = this.started();
    const id = this.nextId++;
    clearTimeout(this.idleTimer);
    // a count waited for keeps the process alive until it is answered; an idle counter never does (see started)
    worker.ref();
    return new Promise<number[]>((resolve, reject) => {
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, texts });
    });
  }

  private started(): Worker {
    if (this.worker) return this.worker;
    const worker = new Worker(THREAD_SOURCE, { eval: true });
    worker.on('message', ({ id, counts }: { id: number; counts: number[] }) => {
      this.pending.get(id)?.resolve(counts);
      this.pending.delete(id);
      if (this.pending.size > 0) return;
      // an idle counter never keeps a process alive (a CLI command, a test run) that has nothing else to do. Unref'd
      // here, after the listener: adding a 'message' listener refs the worker's port again (an unref before it kept
      // every process that ever counted alive for the idle minute)
      worker.unref();
      this.idleTimer = setTimeout(() => this.stop(worker), IDLE_MS).unref();
    });
    const fail = (error: Error) => {
      if (this.worker !== worker) return;
      this.worker = undefined;
      for (const { reject } of this.pending.values()) reject(error);
      this.pending.clear();
    };
    worker.on('error', fail);
    worker.on('exit', (code) => fail(new Error(`the token counter thread exited (code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private stop(worker: Worker): void {
    if (this.worker !== worker || this.pending.size > 0) return;
    this.worker = undefined;
    void worker.terminate();
  }
}

const counter = new TokenCounterThread();

/** The o200k_base tokens of each text, in order. */
export function countTokens(texts: readonly string[]): Promise<number[]> {
  return counter.count(texts);
}

/**
 * Resolves once the counter's thread has loaded the ranks. A caller that counts inside a database transaction waits
 * for this first, outside it: a first load under load can take seconds, past an interactive transaction's timeout.
 */
export async function tokenCounterReady(): Promise<void> {
  await counter.count(['']);
}

/**
 * What a new description version costs: the tokens of its served description, and those its warnings block adds (the
 * served text's count less the base description's), counted in one round trip.
 */
export async function countVersionTokens(
  baseDescription: string,
  description: string,
): Promise<{ descriptionTokens: number; warningTokens: number }> {
  const [served, base] = await counter.count([description, renderDescription(baseDescription, [])]);
  return { descriptionTokens: served, warningTokens: Math.max(0, served - base) };
}
