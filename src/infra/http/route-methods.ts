import { FastifyInstance } from 'fastify';

interface KnownRoute {
  segments: string[];
  method: string;
}

/**
 * The methods each registered path answers, so a request with another method on a known path gets 405 with `Allow`
 * rather than 404. Paths are matched segment by segment: `:name` matches any one segment, `*` the rest.
 */
export class RouteMethods {
  private readonly routes: KnownRoute[] = [];

  /** Must run before the routes are registered (Fastify tells onRoute hooks only about later routes). */
  static collectFrom(fastify: FastifyInstance): RouteMethods {
    const methods = new RouteMethods();
    fastify.addHook('onRoute', (route) => {
      for (const method of [route.method].flat()) methods.add(route.url, method);
    });
    return methods;
  }

  add(pattern: string, method: string) {
    this.routes.push({ segments: splitPattern(pattern), method: method.toUpperCase() });
  }

  /** Every method some route takes on this path (without its query), sorted; empty for an unknown path. */
  allowedOn(url: string): string[] {
    const segments = url.split('?', 1)[0].split('/');
    const allowed = new Set<string>();
    for (const route of this.routes) {
      if (matches(route.segments, segments)) allowed.add(route.method);
    }
    return [...allowed].sort();
  }
}

/** Fastify writes a literal `:` as `::` (`/v1/tools::bulk`). */
function splitPattern(pattern: string): string[] {
  return pattern.split('/').map((segment) => (segment.startsWith(':') && !segment.startsWith('::') ? ':' : segment.replaceAll('::', ':')));
}

function matches(pattern: readonly string[], path: readonly string[]): boolean {
  for (let i = 0; i < pattern.length; i++) {
    if (pattern[i] === '*') return true;
    if (i >= path.length) return false;
    if (pattern[i] === ':' ? path[i] === '' : pattern[i] !== path[i]) return false;
  }
  return pattern.length === path.length;
}
