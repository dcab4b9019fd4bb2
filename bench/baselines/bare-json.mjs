// Baseline for the registry and validate scenarios: bare Fastify answering a constant JSON document of the same size
// as toolcoach's answer (GET), or parsing the same request body first (POST).
import Fastify from 'fastify';

const document = process.env.BASELINE_BODY ?? '{}';
const app = Fastify({ bodyLimit: 1024 * 1024 });

// the harness checks pid and nonce: the process answering is the one it started
app.get('/healthz', async () => ({ ok: true, pid: process.pid, nonce: process.env.BENCH_NONCE ?? null }));
app.get('/doc', async (_request, reply) => reply.type('application/json').send(document));
app.post('/doc', async (request, reply) => {
  if (request.body === undefined) throw new Error('no body');
  return reply.type('application/json').send(document);
});

// PORT=0: the OS picks a free port; the harness reads it from this line
await app.listen({ port: Number(process.env.PORT ?? 0), host: '127.0.0.1' });
console.log(`bench-listening ${app.server.address().port}`);
