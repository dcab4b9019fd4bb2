import { NestFastifyApplication, RouteConfig } from '@nestjs/platform-fastify';
import { RawServerDefault } from 'fastify';

const KEEPS_PROTOTYPE_KEYS = 'keepsPrototypeKeys';

/**
 * For a route that judges `__proto__` keys item by item itself (ingest refuses the one event that holds one): its body
 * keeps them as plain own properties, which JSON.parse makes safely, instead of the whole request being refused.
 */
export const KeepsPrototypeKeys = () => RouteConfig({ [KEEPS_PROTOTYPE_KEYS]: true });

/**
 * JSON bodies, also when labelled text/plain (browser beacons and some hooks send that): judged by what they hold, 400
 * when they are not JSON. Every other route refuses a body with `__proto__` (or `constructor.prototype`) keys whole,
 * so no code behind it ever meets one.
 */
export function parseJsonBodies(app: NestFastifyApplication, bodyLimitBytes: number) {
  const fastify = app.getHttpAdapter().getInstance();
  const refusing = fastify.getDefaultJsonParser('error', 'error');
  const keeping = fastify.getDefaultJsonParser('ignore', 'ignore');
  app.useBodyParser<RawServerDefault>(['application/json', 'text/plain'], { bodyLimit: bodyLimitBytes }, (request, body, done) => {
    const config: object = request.routeOptions.config;
    const parse = (config as Record<string, unknown>)[KEEPS_PROTOTYPE_KEYS] === true ? keeping : refusing;
    parse(request, body.toString('utf8'), done);
  });
}
