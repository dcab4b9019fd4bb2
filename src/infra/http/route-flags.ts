import { RouteConfig } from '@nestjs/platform-fastify';
import { FastifyRequest } from 'fastify';

/** What a route asks of the shared HTTP pieces (body parsers, the exception filter). */
export interface RouteFlags {
  /**
   * The route judges its items one by one itself (ingest): its JSON body keeps `__proto__` keys as the plain own
   * properties JSON.parse makes, and what Postgres cannot store is refused per item, not for the whole request.
   */
  judgesItemsItself?: boolean;
  /**
   * The body carries a caller's data whose keys are names, not structure (validate's `arguments`): `__proto__` and
   * `constructor` keys are kept as the plain own properties JSON.parse makes, and checked like any other name.
   */
  keepsKeysAsData?: boolean;
  /** The route decodes binary protobuf bodies itself (OTLP/HTTP): its handler receives them as a Buffer. */
  takesProtobuf?: boolean;
  /**
   * The route's callers are machines that keep no visible record of a refusal (an OTLP exporter reports FAILED and
   * drops the batch): every 4xx it answers is logged at warn with its status, code, reason and project.
   */
  logsRefusals?: boolean;
  /**
   * A read-only key (scope `read`) may send this route's POSTs: the route refuses their writes itself (/mcp, whose
   * write tools answer a tool error to such a key). Every other POST, PUT, PATCH or DELETE refuses a read key with 403.
   */
  admitsReadOnlyKeys?: boolean;
}

const FLAGS = 'toolcoachFlags';

/** Fastify keeps one config object per route and a second @RouteConfig replaces the first, so all flags go in one. */
export const WithRouteFlags = (flags: RouteFlags) => RouteConfig({ [FLAGS]: flags });

export function routeFlagsOf(request: FastifyRequest): RouteFlags {
  const config: object | undefined = request.routeOptions?.config;
  return ((config as Record<string, unknown> | undefined)?.[FLAGS] as RouteFlags | undefined) ?? {};
}
