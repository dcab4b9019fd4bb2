/** Where the tests' databases live: the server of DATABASE_URL (default: local Postgres), never the dev database. */
export const BASE_DATABASE_URL = process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/toolcoach';
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

const baseName = decodeURIComponent(new URL(BASE_DATABASE_URL).pathname.slice(1)) || 'toolcoach';
export const TEMPLATE_DATABASE = `${baseName}_test_template`.slice(0, 63);
/** Every database a test file creates is named this, then a random suffix: what globalTeardown may drop. */
export const CLONE_PREFIX = `${baseName}_test_`.slice(0, 40);

export function databaseUrl(name: string): string {
  const url = new URL(BASE_DATABASE_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export const ADMIN_DATABASE_URL = databaseUrl('postgres');
