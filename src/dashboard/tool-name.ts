import { ApiError } from '../infra/http/api-error';

/** Tool names are stored up to 200 characters; a longer one cannot name anything of this project. */
export function requireToolName(name: string): string {
  if (name.length === 0 || name.length > 200) {
    throw new ApiError(400, 'invalid_path', 'Invalid tool name', {
      details: [{ path: '/params/name', message: 'must be 1 to 200 characters' }],
    });
  }
  return name;
}
