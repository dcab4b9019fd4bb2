import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { ToolDefinition, ToolDescription } from '@toolcoach/core';

interface CacheFile {
  savedAt: string;
  tools: Record<string, { version: number; description: string; baseDescription: string }>;
}

export function defaultCacheDir(): string {
  return join(homedir(), '.cache', 'toolcoach');
}

/**
 * The last descriptions the server gave, one file per server, key and side (the sticky headers: session or agent), so
 * an agent started while the server is down still gets the learned warnings, and never those another side was served
 * (a canary's version, say). Every failure here is swallowed: the cache is an optimisation, never a requirement.
 */
export class DescriptionCache {
  private readonly file: string;

  constructor(
    private readonly dir: string,
    baseUrl: string,
    apiKey: string,
    side: Readonly<Record<string, string>>,
  ) {
    // The key is hashed so the file name does not reveal it; the side is, so that it cannot make a path.
    const sideKey = Object.entries(side)
      .map(([name, value]) => `${name}=${value}`)
      .sort()
      .join('\u0000');
    // (no side: the name caches had before sides were told apart, so an upgrade keeps them)
    const seed = sideKey ? `${baseUrl}\u0000${apiKey}\u0001${sideKey}` : `${baseUrl}\u0000${apiKey}`;
    const id = createHash('sha256').update(seed).digest('hex').slice(0, 16);
    this.file = join(dir, `descriptions-${id}.json`);
  }

  save(definitions: ToolDefinition[], served: Map<string, ToolDescription>): void {
    try {
      const tools: CacheFile['tools'] = {};
      for (const definition of definitions) {
        const description = served.get(definition.name);
        if (!description) continue;
        tools[definition.name] = {
          version: description.version,
          description: description.description,
          baseDescription: definition.description,
        };
      }
      mkdirSync(this.dir, { recursive: true });
      const temporary = `${this.file}.${process.pid}.tmp`;
      writeFileSync(temporary, JSON.stringify({ savedAt: new Date().toISOString(), tools } satisfies CacheFile));
      renameSync(temporary, this.file);
    } catch {
      // A read-only home directory only costs the fallback.
    }
  }

  /** Cached descriptions of the tools whose own description is still the one they were cached for. */
  load(
    definitions: ToolDefinition[],
  ): { savedAt: string; descriptions: Map<string, { version: number; description: string }> } | undefined {
    try {
      const cached = JSON.parse(readFileSync(this.file, 'utf8')) as CacheFile;
      const descriptions = new Map<string, { version: number; description: string }>();
      for (const definition of definitions) {
        const entry = cached.tools[definition.name];
        // A tool whose code changed its description since would get warnings written for another text.
        if (entry && entry.baseDescription === definition.description) descriptions.set(definition.name, entry);
      }
      return { savedAt: cached.savedAt, descriptions };
    } catch {
      return undefined;
    }
  }
}
