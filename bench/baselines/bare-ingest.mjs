// Baseline for the ingest scenario: the least a server can do for POST /v1/events on this machine. Bare Fastify
// parses the same JSON body and adds one BullMQ job per request, answering 202 once Redis has it.
import Fastify from 'fastify';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { randomUUID } from 'node:crypto';

const connection = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
const queue = new Queue('events', { connection, prefix: process.env.QUEUE_PREFIX ?? 'tcbench-baseline' });
const app = Fastify({ bodyLimit: 1024 * 1024 });

// the harness checks pid and nonce: the process answering is the one it started
app.get('/healthz', async () => ({ ok: true, pid: process.pid, nonce: process.env.BENCH_NONCE ?? null }));
app.post('/v1/events', async (request, reply) => {
  const { events } = request.body;
  const ids = events.map((e) => e.id);
  await queue.add('categorize-batch', { receivedAt: new Date().toISOString(), events }, { jobId: randomUUID(), removeOnComplete: true });
  reply.code(202);
  return { accepted: events.length, ids, rejected: [] };
});

// PORT=0: the OS picks a free port; the harness reads it from this line
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
console.log(`bench-listening ${app.server.address().port}`);
