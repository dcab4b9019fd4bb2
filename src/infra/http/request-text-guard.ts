import { FastifyInstance } from 'fastify';
import { ApiError, FieldError } from './api-error';
import { pointerSegment, unstorableTextReason } from './storable-values';

/**
 * Refuses, before any route runs, a path or query parameter holding text Postgres cannot store (NUL, a lone
 * surrogate): 400 naming it, on every route at once, instead of a 500 from the first query that carries it.
 */
export function refuseUnstorableRequestText(fastify: FastifyInstance) {
  fastify.addHook('onRequest', (request, reply, done) => {
    const details = [...unstorableParts('/params', request.params), ...unstorableParts('/query', request.query)];
    if (details.length === 0) return done();
    const isPath = details[0].path.startsWith('/params/');
    const name = details[0].path.slice(details[0].path.indexOf('/', 1) + 1);
    const error = isPath
      ? new ApiError(400, 'invalid_path', `Invalid path parameter ${name}`, { details })
      : new ApiError(400, 'invalid_query', `Invalid query parameter ${name}`, { details });
    reply.code(error.status).send(error.toBody());
  });
}

function unstorableParts(prefix: string, parts: unknown): FieldError[] {
  if (parts === null || typeof parts !== 'object') return [];
  const errors: FieldError[] = [];
  for (const [name, value] of Object.entries(parts)) {
    const path = `${prefix}/${pointerSegment(name)}`;
    const nameReason = unstorableTextReason(name);
    if (nameReason) errors.push({ path, message: `name ${nameReason}` });
    // a repeated query parameter arrives as an array of its values
    for (const text of Array.isArray(value) ? value : [value]) {
      const reason = typeof text === 'string' ? unstorableTextReason(text) : null;
      if (reason) errors.push({ path, message: reason });
    }
  }
  return errors;
}
