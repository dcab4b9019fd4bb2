import { FastifyInstance, FastifyRequest } from 'fastify';
import { Readable, Transform, TransformCallback } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { ApiError } from './api-error';

// RFC 9110 asks recipients to treat x-gzip as gzip; identity (or an empty header) means not encoded.
const GZIP = new Set(['gzip', 'x-gzip']);
const IDENTITY = new Set(['', 'identity']);

/** A body stream that reports the compressed bytes it read, so Fastify matches Content-Length against those. */
export type DecodedBody = Transform & { receivedEncodedLength: number };

/**
 * Accepts `Content-Encoding: gzip` on every route with a body (OTLP exporters compress by default): the body limit then
 * holds for the decompressed bytes, which are counted as they come out, so a zip bomb is refused with 413 as soon as
 * its output passes the limit. Any other coding is refused with 415 naming the ones we take.
 */
export function decompressRequestBodies(fastify: FastifyInstance, bodyLimitBytes: number) {
  fastify.addHook('preParsing', (request, _reply, payload, done) => {
    const header = request.headers['content-encoding'];
    const coding = (Array.isArray(header) ? header.join(',') : (header ?? '')).trim().toLowerCase();
    if (IDENTITY.has(coding) || !hasBody(request.headers)) return done(null, payload);
    if (!GZIP.has(coding)) {
      const shown = JSON.stringify(coding.slice(0, 50));
      return done(
        new ApiError(415, 'unsupported_content_encoding', `Content-Encoding ${shown} is not supported; send gzip or identity`, {
          details: [{ path: '/headers/content-encoding', message: 'must be gzip or identity' }],
        }),
        undefined,
      );
    }
    done(null, boundedGunzip(payload, bodyLimitBytes));
  });
}

/**
 * Inflates `input` and fails the returned stream with a 413 ApiError as soon as the output passes `maxBytes`, stopping
 * the inflate there: at most one zlib chunk beyond the limit is ever produced, and nothing past it is kept. Bytes that
 * are not gzip give a 400 ApiError. `input` itself is never destroyed, so the server can still answer on its socket.
 */
export function boundedGunzip(input: Readable, maxBytes: number): DecodedBody {
  const gunzip = createGunzip();
  const output = new OutputLimit(maxBytes);
  input.on('data', (chunk: Buffer) => (output.receivedEncodedLength += chunk.length));
  input.pipe(gunzip).pipe(output);
  gunzip.on('error', (error: Error) => output.destroy(new ApiError(400, 'invalid_encoding', `Body is not valid gzip: ${error.message}`)));
  input.on('error', (error) => output.destroy(error));
  // the error reaches whoever reads the body; a body nobody reads (its media type is refused) must not crash the process
  output.on('error', () => undefined);
  // whatever ends the output early (the limit, bad gzip, a reset request) stops the inflating too
  output.on('close', () => {
    input.unpipe(gunzip);
    gunzip.destroy();
  });
  return output;
}

/** As Fastify decides whether to parse a body: a length above 0, or chunked. */
function hasBody(headers: FastifyRequest['headers']): boolean {
  return headers['transfer-encoding'] !== undefined || Number(headers['content-length']) > 0;
}

class OutputLimit extends Transform {
  receivedEncodedLength = 0;
  private outputBytes = 0;

  constructor(private readonly maxBytes: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
    this.outputBytes += chunk.length;
    if (this.outputBytes <= this.maxBytes) return callback(null, chunk);
    const limitMb = this.maxBytes / (1024 * 1024);
    callback(new ApiError(413, 'payload_too_large', `Request body is larger than the ${limitMb} MB limit once decompressed`));
  }
}
