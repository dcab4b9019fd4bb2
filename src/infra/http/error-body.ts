import { FastifyError } from 'fastify';
import { ApiError } from './api-error';

/**
 * Maps Fastify's own request errors (body parsing, size, content type) to our error body; `mediaTypes` are the body
 * types the route takes, named when it refuses another.
 */
export function apiErrorFromFastify(error: FastifyError, mediaTypes: readonly string[] = ['application/json']): ApiError | null {
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new ApiError(413, 'payload_too_large', 'Request body is larger than the 1 MB limit');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new ApiError(415, 'unsupported_media_type', `Send the body as ${mediaTypes.join(' or ')}`);
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new ApiError(400, 'invalid_json', 'Body is empty; expected JSON');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new ApiError(400, 'invalid_json', `Body is not valid JSON: ${error.message}`);
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new ApiError(400, 'invalid_content_length', error.message);
  }
  if (error instanceof SyntaxError || error.statusCode === 400) {
    return new ApiError(400, 'invalid_json', `Body is not valid JSON: ${error.message}`);
  }
  if (typeof error.statusCode === 'number' && error.statusCode >= 400 && error.statusCode < 500) {
    return new ApiError(error.statusCode, 'bad_request', error.message);
  }
  return null;
}
