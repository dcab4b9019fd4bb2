import { NestFactory } from '@nestjs/core';
import { FastifyAdapter, NestFastifyApplication } from '@nestjs/platform-fastify';
import { Logger } from 'pino';
import { AppModule } from './app.module';
import { AppConfig } from './config/config';
import { fastifyTrustProxy } from './config/trust-proxy-setting';
import { AllExceptionsFilter } from './infra/http/all-exceptions.filter';
import { markKeyedAnswersPrivate } from './infra/http/cache-control';
import { setUpOpenApi } from './infra/http/openapi/openapi.document';
import { parseJsonBodies } from './infra/http/json-body-parser';
import { parseProtobufBodies } from './infra/http/protobuf-body-parser';
import { decompressRequestBodies } from './infra/http/request-decompression';
import { refuseUnstorableRequestText } from './infra/http/request-text-guard';
import { RouteMethods } from './infra/http/route-methods';
import { sendSecurityHeaders } from './infra/http/security-headers';
import { answerClientError, answerFrameworkError } from './infra/http/transport-errors';
import { PinoNestLogger } from './infra/logging/logger';

export const BODY_LIMIT_BYTES = 1024 * 1024;
export const MAX_PATH_PARAM_LENGTH = 1000;

/** Builds the Nest application for the configured roles (used by main.ts and by the end-to-end tests). */
export async function createApp(config: AppConfig, logger: Logger): Promise<NestFastifyApplication> {
  const adapter = new FastifyAdapter({
    bodyLimit: BODY_LIMIT_BYTES,
    // X-Forwarded-For is believed only from the proxies the operator names, right to left (never its leftmost entry)
    trustProxy: fastifyTrustProxy(config.trustProxy),
    // tool names may be 200 characters, and URL-encoded they grow; Fastify's default of 100 would refuse them
    routerOptions: { maxParamLength: MAX_PATH_PARAM_LENGTH },
    frameworkErrors: answerFrameworkError,
    clientErrorHandler: answerClientError,
  });
  const routeMethods = RouteMethods.collectFrom(adapter.getInstance());
  const app = await NestFactory.create<NestFastifyApplication>(AppModule.forRoles(config, logger), adapter, {
    logger: new PinoNestLogger(logger),
    bufferLogs: false,
    // only the parsers registered below: a form-encoded body (curl -d without a Content-Type) is 415 "send JSON"
    bodyParser: false,
  });
  parseJsonBodies(app, BODY_LIMIT_BYTES);
  parseProtobufBodies(app, BODY_LIMIT_BYTES);
  decompressRequestBodies(adapter.getInstance(), BODY_LIMIT_BYTES);
  refuseUnstorableRequestText(adapter.getInstance());
  sendSecurityHeaders(adapter.getInstance());
  markKeyedAnswersPrivate(adapter.getInstance());
  app.useGlobalFilters(new AllExceptionsFilter(logger, routeMethods));
  if (config.roles.has('api')) setUpOpenApi(app);
  return app;
}
