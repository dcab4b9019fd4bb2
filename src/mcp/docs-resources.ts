import { Injectable } from '@nestjs/common';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface DocsResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: 'text/markdown';
  text: string;
}

const URI_PREFIX = 'toolcoach://docs/';
/** The page that explains the taxonomy the tools' categories and subtypes come from. */
const TAXONOMY_PAGE = 'categorization.md';

/**
 * The repository's docs pages (docs/*.md and docs/integrations/*.md) as MCP resources, read once at start: what the
 * categories mean, how rollout and recommendations decide. The same for every project: they hold no project's data.
 */
@Injectable()
export class DocsResources {
  private readonly pages: Map<string, DocsResource>;

  constructor() {
    this.pages = new Map(readDocsPages(join(findRepositoryRoot(__dirname), 'docs')).map((page) => [page.uri, page]));
  }

  list(): DocsResource[] {
    return [...this.pages.values()];
  }

  find(uri: string): DocsResource | undefined {
    return this.pages.get(uri);
  }
}

function readDocsPages(docsDir: string): DocsResource[] {
  const files = ['', 'integrations/'].flatMap((folder) =>
    readdirSync(join(docsDir, folder))
      .filter((name) => name.endsWith('.md'))
      .sort()
      .map((name) => `${folder}${name}`),
  );
  return files.map((file) => {
    const text = readFileSync(join(docsDir, file), 'utf8');
    const title = /^# (.+)$/m.exec(text)?.[1] ?? file;
    const isTaxonomy = file === TAXONOMY_PAGE;
    return {
      uri: `${URI_PREFIX}${file}`,
      name: file,
      title,
      description: isTaxonomy
        ? 'The taxonomy of tool-call failures: every category and subtype the tools answer, and how a failure is assigned one'
        : `toolcoach documentation: ${title}`,
      mimeType: 'text/markdown',
      text,
    };
  });
}

/** The folder holding package.json and docs/: src/mcp when run from sources, dist/src/mcp when built. */
function findRepositoryRoot(from: string): string {
  let dir = from;
  while (!existsSync(join(dir, 'package.json')) || !existsSync(join(dir, 'docs'))) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error(`docs/ not found above ${from}`);
    dir = parent;
  }
  return dir;
}
