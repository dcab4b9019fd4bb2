import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { ApiError } from '../infra/http/api-error';
import { routeFlagsOf } from '../infra/http/route-flags';
import { AuthenticatedProject } from './project.repository';
import { ProjectService } from './project.service';
import { RateLimiter } from './rate-limiter';

const AUTH_RETRY_AFTER_SECONDS = 5;

export interface AuthenticatedRequest extends FastifyRequest {
  project: AuthenticatedProject;
}

/** Every /v1 route: `Authorization: Bearer <key>` resolves to exactly one project, or 401. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(
    private readonly projects: ProjectService,
    private readonly rateLimiter: RateLimiter,
  ) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) throw new ApiError(401, 'unauthorized', describeMissingBearer(header));
    const project = this.projects.recentlyVerified(match[1]) ?? (await this.verifyKey(match[1]));
    const limit = await this.rateLimiter.consume(project.apiKeyId);
    if (limit && !limit.isAllowed) {
      throw new ApiError(429, 'rate_limited', `Rate limit of ${limit.limit} requests per window exceeded for this key`, {
        headers: { 'retry-after': String(limit.retryAfterSeconds), 'x-ratelimit-limit': String(limit.limit), 'x-ratelimit-remaining': '0' },
      });
    }
    if (project.scope === 'read' && !isReadRequest(request)) {
      throw new ApiError(
        403,
        'read_only_key',
        'This API key is read-only (scope read): it cannot change anything; use a key with scope write',
      );
    }
    request.project = project;
    return true;
  }

  /**
   * Asks the project service, which refuses a wrong key from memory (see ActiveKeyIndex). Nothing here counts per
   * client address: wrong keys from anyone must never delay or refuse a valid key sent from the same address.
   */
  private async verifyKey(key: string): Promise<AuthenticatedProject> {
    let project;
    try {
      project = await this.projects.authenticate(key);
    } catch {
      throw new ApiError(503, 'auth_unavailable', 'Cannot verify the API key right now; nothing was accepted. Retry later.', {
        headers: { 'retry-after': String(AUTH_RETRY_AFTER_SECONDS) },
      });
    }
    if (!project) throw new ApiError(401, 'unauthorized', 'Unknown or revoked API key');
    return project;
  }
}

const READ_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

function isReadRequest(request: FastifyRequest): boolean {
  return READ_METHODS.has(request.method) || routeFlagsOf(request).admitsReadOnlyKeys === true;
}

/** A key sent without its scheme is the usual slip: say exactly that rather than "missing". */
function describeMissingBearer(header: string | undefined): string {
  if (header === undefined || header.trim() === '') return 'Missing API key: send "Authorization: Bearer <key>"';
  if (!/\s/.test(header.trim())) return 'The Authorization header lacks the "Bearer " prefix: send "Authorization: Bearer <key>"';
  return 'The Authorization header must be "Bearer <key>"';
}
