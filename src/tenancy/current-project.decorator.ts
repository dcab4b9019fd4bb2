import { createParamDecorator, ExecutionContext } from '@nestjs/common';
import { AuthenticatedRequest } from './api-key.guard';

/** The project the request's API key belongs to (set by ApiKeyGuard). */
export const CurrentProject = createParamDecorator((_: unknown, context: ExecutionContext) => {
  return context.switchToHttp().getRequest<AuthenticatedRequest>().project;
});
