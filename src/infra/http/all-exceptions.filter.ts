import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Logger } from 'pino';
import { isDatabaseUnavailable } from '../prisma/database-unavailable';
import { ApiError } from './api-error';
import { apiErrorFromFastify } from './error-body';
import { PROTOBUF_CONTENT_TYPE } from './protobuf-body-parser';
import { routeFlagsOf } from './route-flags';
import { RouteMethods } from './route-methods';

/** Every error leaves as `{error: {code, message, details?}}`; only unexpected ones are 500 and logged with a stack. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(
    private readonly logger: Logger,
    private readonly routeMethods: RouteMethods,
  ) {}

  catch(exception: unknown, host: ArgumentsHost) {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const error = this.toApiError(exception, request);
    if (error.status >= 500) {
      this.logger.error({ err: exception, method: request.method, url: request.url }, 'request failed');
    } else if (routeFlagsOf(request).logsRefusals) {
      this.logger.warn(refusalLogFields(request, error), 'request refused');
    }
    reply.status(error.status).headers(error.headers).send(error.toBody());
  }

  private toApiError(exception: unknown, request: FastifyRequest): ApiError {
    if (exception instanceof ApiError) return exception;
    const mediaTypes = routeFlagsOf(request).takesProtobuf ? ['application/json', PROTOBUF_CONTENT_TYPE] : undefined;
    if (exception instanceof HttpException) {
      // Nest wraps Fastify's body-parsing errors; answer those by their Fastify code
      const fromFastify = exception.cause ? apiErrorFromFastify(exception.cause as FastifyError, mediaTypes) : null;
      if (fromFastify) return fromFastify;
      const status = exception.getStatus();
      if (status === 404) return this.methodNotAllowed(request) ?? new ApiError(404, 'not_found', exception.message);
      const code = status === 404 ? 'not_found' : status === 400 ? 'bad_request' : 'http_error';
      return new ApiError(status, code, exception.message);
    }
    const fromFastify = apiErrorFromFastify(exception as FastifyError, mediaTypes);
    if (fromFastify) return fromFastify;
    if (isDatabaseUnavailable(exception)) {
      return new ApiError(503, 'database_unavailable', 'The database did not answer; retry later.', {
        headers: { 'retry-after': String(DATABASE_RETRY_AFTER_SECONDS) },
      });
    }
    return new ApiError(500, 'internal_error', 'Internal server error');
  }

  /** No route for this method, but the path is known: 405 naming the methods it takes. */
  private methodNotAllowed(request: FastifyRequest): ApiError | null {
    const allowed = this.routeMethods.allowedOn(request.url);
    if (allowed.length === 0 || allowed.includes(request.method)) return null;
    const path = request.url.split('?', 1)[0].slice(0, 300);
    return new ApiError(405, 'method_not_allowed', `${request.method} is not supported on ${path}; use ${allowed.join(', ')}`, {
      headers: { allow: allowed.join(', ') },
    });
  }
}

const MAX_LOGGED_DETAILS = 5;
/** A Postgres restart or failover takes seconds. */
const DATABASE_RETRY_AFTER_SECONDS = 5;

/** The project is known only once the API key was checked: refusals of the body itself come before that. */
function refusalLogFields(request: FastifyRequest, error: ApiError) {
  const { project } = request as FastifyRequest & { project?: { projectId: string } };
  return {
    status: error.status,
    code: error.code,
    reason: error.message,
    details: error.options.details?.slice(0, MAX_LOGGED_DETAILS),
    projectId: project?.projectId ?? null,
    method: request.method,
    url: request.url,
    contentType: request.headers['content-type'] ?? null,
    contentEncoding: request.headers['content-encoding'] ?? null,
  };
}
