import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '..', '..');

/** README.md and every Markdown page under docs/, as repo-relative paths: what the documentation tests read. */
export function documentationFiles(): string[] {
  const under = (folder: string): string[] =>
    readdirSync(join(REPO_ROOT, folder), { withFileTypes: true }).flatMap((entry) => {
      const path = `${folder}/${entry.name}`;
      if (entry.isDirectory()) return under(path);
      return entry.name.endsWith('.md') ? [path] : [];
    });
  return ['README.md', ...under('docs').sort()];
}
