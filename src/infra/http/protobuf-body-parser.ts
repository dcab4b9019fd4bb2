import { NestFastifyApplication } from '@nestjs/platform-fastify';
import { RawServerDefault } from 'fastify';
import { ApiError } from './api-error';
import { routeFlagsOf } from './route-flags';

/** The media type of binary protobuf bodies, as OTLP/HTTP sends them. */
export const PROTOBUF_CONTENT_TYPE = 'application/x-protobuf';

/**
 * Protobuf bodies reach, as a Buffer, only the routes flagged `takesProtobuf`; every other route answers them as an
 * unsupported type, as before there was a parser for them.
 */
export function parseProtobufBodies(app: NestFastifyApplication, bodyLimitBytes: number) {
  app.useBodyParser<RawServerDefault>(PROTOBUF_CONTENT_TYPE, { bodyLimit: bodyLimitBytes }, (request, body, done) => {
    if (routeFlagsOf(request).takesProtobuf) return done(null, body);
    done(new ApiError(415, 'unsupported_media_type', 'Send the body as application/json'), undefined);
  });
}
