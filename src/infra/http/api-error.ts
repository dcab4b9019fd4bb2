import { truncateText } from './storable-values';

/** A field-level problem: JSON Pointer into the request (body or query) and what is wrong there. */
export interface FieldError {
  path: string;
  message: string;
}

export interface ApiErrorOptions {
  details?: readonly FieldError[];
  headers?: Record<string, string>;
  /** Fields answered beside `error`, for endpoints whose error body has a documented shape of its own. */
  body?: Record<string, unknown>;
}

/** An error the API answers with as-is: `{error: {code, message, details?}}` and the given status. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly options: ApiErrorOptions = {},
  ) {
    super(message);
  }

  get headers(): Record<string, string> {
    return this.options.headers ?? {};
  }

  toBody() {
    const { details, body } = this.options;
    return { ...body, error: { code: this.code, message: this.message, ...(details ? { details } : {}) } };
  }
}

/** Ids are quoted, cut to this many characters: an id from the URL is echoed as data, never at any length. */
const MAX_ECHOED_ID_CHARS = 200;

/** The 404 of a thing looked up by id or name in the caller's project: `No tool "calc" in this project`. */
export function notFound(kind: string, id: string): ApiError {
  return new ApiError(404, 'not_found', `No ${kind} ${JSON.stringify(echoedId(id))} in this project`);
}

function echoedId(id: string): string {
  return id.length <= MAX_ECHOED_ID_CHARS ? id : `${truncateText(id, MAX_ECHOED_ID_CHARS)}…`;
}
