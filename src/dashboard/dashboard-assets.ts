import { Injectable } from '@nestjs/common';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface DashboardAsset {
  body: Buffer;
  contentType: string;
}

const PAGE_FILES: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'app.js': 'text/javascript; charset=utf-8',
  'app.css': 'text/css; charset=utf-8',
};
// The charting library, served from node_modules: the page loads nothing from the internet.
const UPLOT_FILES: Record<string, [string, string]> = {
  'uPlot.iife.min.js': ['dist/uPlot.iife.min.js', 'text/javascript; charset=utf-8'],
  'uPlot.min.css': ['dist/uPlot.min.css', 'text/css; charset=utf-8'],
};

/** The page's files, read once: only names listed here are served, so no path ever reaches the file system. */
@Injectable()
export class DashboardAssets {
  private readonly files = new Map<string, DashboardAsset>();

  constructor() {
    const pageDir = join(findRepositoryRoot(__dirname), 'public', 'dashboard');
    for (const [name, contentType] of Object.entries(PAGE_FILES)) {
      this.files.set(name, { body: readFileSync(join(pageDir, name)), contentType });
    }
    const uplotDir = dirname(require.resolve('uplot/package.json'));
    for (const [name, [path, contentType]] of Object.entries(UPLOT_FILES)) {
      this.files.set(name, { body: readFileSync(join(uplotDir, path)), contentType });
    }
  }

  find(name: string): DashboardAsset | undefined {
    return this.files.get(name);
  }
}

/** The folder holding package.json: src/dashboard when run from sources, dist/src/dashboard when built. */
function findRepositoryRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'public'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`public/dashboard not found above ${from}`);
    dir = parent;
  }
  return dir;
}
