import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { RawServerDefault } from 'fastify';
import { ApiError } from './api-error';
import { routeFlagsOf, WithRouteFlags } from './route-flags';
import { firstUnstorableValue } from './storable-values';

/**
 * For a route that judges its items one by one itself (ingest): its body keeps `__proto__` keys as the plain own
 * properties JSON.parse makes, and what Postgres cannot store is refused per event, not for the whole request.
 */
export const BodyJudgedPerItem = () => WithRouteFlags({ judgesItemsItself: true });

/** For a route whose body is a caller's data (validate's arguments): its `__proto__` keys are plain own properties. */
export const BodyKeysAreData = () => WithRouteFlags({ keepsKeysAsData: true });

/**
 * JSON bodies, also when labelled text/plain (browser beacons and some hooks send that): judged by what they hold, 400
 * when they are not JSON. Every other route refuses whole a body with `__proto__` (or `constructor.prototype`) keys, so
 * no code behind it ever meets one (unless it says it keeps them as data), and a body holding what Postgres cannot
 * store (NUL, a lone surrogate, 1e309), so no query behind it ever fails on one.
 */
export function parseJsonBodies(app: NestFastifyApplication, bodyLimitBytes: number) {
  const fastify = app.getHttpAdapter().getInstance();
  const refusing = fastify.getDefaultJsonParser('error', 'error');
  const keeping = fastify.getDefaultJsonParser('ignore', 'ignore');
  app.useBodyParser<RawServerDefault>(['application/json', 'text/plain'], { bodyLimit: bodyLimitBytes }, (request, body, done) => {
    const text = body.toString('utf8');
    if (routeFlagsOf(request).judgesItemsItself) {
      return keeping(request, text, (error, parsed) => {
        if (!error && typeof parsed === 'object' && parsed !== null && !text.includes('\\u')) storableTextBodies.add(parsed);
        done(error, parsed);
      });
    }
    const parse = routeFlagsOf(request).keepsKeysAsData ? keeping : refusing;
    void parse(request, text, (error, parsed) => {
      const problem = error ? null : firstUnstorableValue(parsed, '');
      if (!problem) return done(error, parsed);
      done(new ApiError(400, 'invalid_body', `Invalid field ${problem.path}`, { details: [problem] }), undefined);
    });
  });
}

/**
 * Whether no string or key in this parsed ingest body can hold NUL or a lone UTF-16 surrogate, known from its text:
 * JSON text carries either only as a `\u` escape (a raw NUL is not valid JSON, and decoding UTF-8 never yields a
 * lone surrogate). Such a body's events skip the per-string checks (issue 18).
 */
export function isBodyTextStorable(body: unknown): boolean {
  return typeof body === 'object' && body !== null && storableTextBodies.has(body);
}

const storableTextBodies = new WeakSet<object>();
