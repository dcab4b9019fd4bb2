import { FastifyInstance } from 'fastify';

// Headers that keep a browser from running, framing or sniffing what we serve. The pages load only their own files
// (the dashboard and its uPlot copy, the Swagger UI bundle), so 'self' is all they need.

const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "connect-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
];
/** The dashboard sets colours through the DOM, never in markup, so no inline style is allowed either. */
const DASHBOARD_POLICY = [...PAGE_POLICY, "style-src 'self'"].join('; ');
/** Swagger UI's page (built by @nestjs/swagger) carries its CSS in <style> blocks; its scripts are all files. */
const DOCS_POLICY = [...PAGE_POLICY, "style-src 'self' 'unsafe-inline'"].join('; ');
/** JSON answers are never documents: nothing in them may load or run, and no page may frame them. */
const API_POLICY = "default-src 'none'; frame-ancestors 'none'";

export function contentSecurityPolicyFor(url: string): string {
  if (url === '/dashboard' || url.startsWith('/dashboard/') || url.startsWith('/dashboard?')) return DASHBOARD_POLICY;
  if (url === '/docs' || url.startsWith('/docs/') || url.startsWith('/docs?')) return DOCS_POLICY;
  return API_POLICY;
}

/** Every answer, errors included, carries the policy of its path, X-Frame-Options: DENY and nosniff. */
export function sendSecurityHeaders(fastify: FastifyInstance) {
  fastify.addHook('onSend', (request, reply, payload, done) => {
    reply.header('content-security-policy', contentSecurityPolicyFor(request.url));
    reply.header('x-frame-options', 'DENY');
    reply.header('x-content-type-options', 'nosniff');
    done(null, payload);
  });
}
