import { ArgumentsHost, Catch, ExceptionFilter, HttpException } from '@nestjs/common';
import { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import { Logger } from 'pino';
import { ApiError } from './api-error';
import { apiErrorFromFastify } from './error-body';

/** Every error leaves as `{error: {code, message, details?}}`; only unexpected ones are 500 and logged with a stack. */
@Catch()
export class AllExceptionsFilter implements ExceptionFilter {
  constructor(private readonly logger: Logger) {}

  catch(exception: unknown, host: ArgumentsHost) {
    const reply = host.switchToHttp().getResponse<FastifyReply>();
    const request = host.switchToHttp().getRequest<FastifyRequest>();
    const error = this.toApiError(exception);
    if (error.status >= 500) {
      this.logger.error({ err: exception, method: request.method, url: request.url }, 'request failed');
    }
    reply.status(error.status).headers(error.headers).send(error.toBody());
  }

  private toApiError(exception: unknown): ApiError {
    if (exception instanceof ApiError) return exception;
    if (exception instanceof HttpException) {
      // Nest wraps Fastify's body-parsing errors; answer those by their Fastify code
      const fromFastify = exception.cause ? apiErrorFromFastify(exception.cause as FastifyError) : null;
      if (fromFastify) return fromFastify;
      const status = exception.getStatus();
      const code = status === 404 ? 'not_found' : status === 400 ? 'bad_request' : 'http_error';
      return new ApiError(status, code, exception.message);
    }
    const fromFastify = apiErrorFromFastify(exception as FastifyError);
    if (fromFastify) return fromFastify;
    return new ApiError(500, 'internal_error', 'Internal server error');
  }
}
