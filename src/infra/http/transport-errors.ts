import { STATUS_CODES } from 'node:http';
import { Socket } from 'node:net';
import { FastifyError, FastifyReply, FastifyRequest } from 'fastify';

/**
 * Errors Fastify answers before any route runs (a malformed URL, a path segment over maxParamLength, headers over
 * Node's limit) leave with the same `{error: {code, message}}` body as every other error.
 */
export function answerFrameworkError(error: FastifyError, _request: FastifyRequest, reply: FastifyReply) {
  const status = error.statusCode && error.statusCode >= 400 && error.statusCode < 500 ? error.statusCode : 400;
  const code = status === 414 ? 'uri_too_long' : 'bad_url';
  reply.code(status).send({ error: { code, message: error.message.slice(0, 300) } });
}

export function answerClientError(error: NodeJS.ErrnoException, socket: Socket) {
  // a reset connection has nobody left to answer
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, code, message] =
    error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
      ? [408, 'request_timeout', 'The request took too long to arrive']
      : error.code === 'HPE_HEADER_OVERFLOW'
        ? [431, 'headers_too_large', 'The request line and headers exceed the allowed size']
        : [400, 'bad_request', 'The request could not be parsed as HTTP'];
  const body = JSON.stringify({ error: { code, message } });
  if (socket.writable) {
    socket.write(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n${body}`,
    );
  }
  socket.destroy(error);
}
