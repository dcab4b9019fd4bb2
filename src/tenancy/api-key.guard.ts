import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { FastifyRequest } from 'fastify';
import { ApiError } from '../infra/http/api-error';
import { AuthenticatedProject } from './project.repository';
import { ProjectService } from './project.service';

export interface AuthenticatedRequest extends FastifyRequest {
  project: AuthenticatedProject;
}

/** Every /v1 route: `Authorization: Bearer <key>` resolves to exactly one project, or 401. */
@Injectable()
export class ApiKeyGuard implements CanActivate {
  constructor(private readonly projects: ProjectService) {}

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AuthenticatedRequest>();
    const header = request.headers.authorization;
    const match = typeof header === 'string' ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
    if (!match) {
      throw new ApiError(401, 'unauthorized', 'Missing API key: send "Authorization: Bearer <key>"');
    }
    const project = await this.projects.authenticate(match[1]);
    if (!project) throw new ApiError(401, 'unauthorized', 'Unknown or revoked API key');
    request.project = project;
    return true;
  }
}
