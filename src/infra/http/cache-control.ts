import { FastifyInstance, FastifyRequest } from 'fastify';

// An answer that depends on the API key must never be stored by a shared cache (a CDN or proxy in front of the
// server) and served to whoever asks the same URL next, nor kept on disk by a browser. Every /v1 answer, and any
// answer to a request that carried a key, says so; a route that allows revalidation (the tool list and descriptions,
// with their ETags) sets its own `private` value, which is left alone.

const KEYED_DEFAULT = 'private, no-store';

export function markKeyedAnswersPrivate(fastify: FastifyInstance) {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    if (dependsOnKey(request) && !reply.hasHeader('cache-control')) reply.header('cache-control', KEYED_DEFAULT);
    done(null, payload);
  });
}

function dependsOnKey(request: FastifyRequest): boolean {
  return request.url.startsWith('/v1/') || request.url === '/v1' || request.headers.authorization !== undefined;
}
