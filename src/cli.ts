import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { UnknownLaneRepository } from './categorize/unknown-lane.repository';
import { UnknownTemplatesService } from './categorize/unknown-templates.service';
import { loadConfig, redactUrl } from './config/config';
import { RedisTarget } from './config/redis-settings';
import { createRootLogger } from './infra/logging/logger';
import { RedisBroadcast } from './infra/redis/redis-broadcast';
import { keyChangeMessage, keyChangesChannelName } from './tenancy/api-key-changes.channel';
import { hashApiKey } from './tenancy/api-key';
import { PrismaService } from './infra/prisma/prisma.service';
import { ProjectRepository } from './tenancy/project.repository';
import { ProjectService } from './tenancy/project.service';
import { MAX_RETENTION_DAYS, MIN_RETENTION_DAYS } from './retention/partition-plan';
import { RetentionRepository } from './retention/retention.repository';

const USAGE = `usage: npm run cli -- <command>     (after npm run build; DATABASE_URL and REDIS_URL as for the server)
  project:create NAME          create a project and print its first API key (shown once), as TOOLCOACH_API_KEY
  project:list                 every project: name, id, created, active keys
  key:create PROJECT [NAME]    create another API key for a project and print it
  key:create PROJECT NAME --read   ... a read-only key: GET routes and the read tools of /mcp (docs/mcp-server.md)
  key:list PROJECT             the project's keys: id, name, scope, prefix, created, last used, revoked (never the secret)
  key:revoke KEY               revoke an API key at once, given its secret (tc_...)
  key:revoke KEY_ID            ... or its id (from key:list)
  key:revoke PROJECT NAME      ... or its name within the project (every active key of that name)
  retention:set PROJECT DAYS   keep the project's raw events DAYS days (${MIN_RETENTION_DAYS}-${MAX_RETENTION_DAYS}; docs/retention.md)
  unknown-labels:export --project ID|NAME [--out FILE]
                               the project's labelled unknown templates as categorizer fixture lines (JSONL), to
                               stdout or FILE (docs/unknown-lane.md)
  help, --help, -h             this text`;

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  if (command === 'help' || command === '--help' || command === '-h') {
    console.log(USAGE);
    return 0;
  }
  const config = loadConfig(process.env);
  const prisma = new PrismaService(config);
  const projects = new ProjectService(new ProjectRepository(prisma));
  try {
    switch (command) {
      case 'project:create': {
        if (!args[0]) break;
        const { projectId, apiKey } = await projects.createProject(args[0]);
        await announceCreation(config.redis, config.queuePrefix, apiKey);
        console.log(`project ${args[0]} created (id ${projectId})`);
        console.log(`API key (shown once, store it now): ${apiKey}`);
        // the one name both SDKs, the demo and the OpenTelemetry examples read the key from
        console.log(`export TOOLCOACH_API_KEY=${apiKey}`);
        return 0;
      }
      case 'key:create': {
        const isReadOnly = args.includes('--read');
        const [projectName, keyName] = args.filter((arg) => arg !== '--read');
        if (!projectName) break;
        const apiKey = await projects.createKeyForProject(projectName, keyName ?? 'cli', isReadOnly ? 'read' : 'write');
        await announceCreation(config.redis, config.queuePrefix, apiKey);
        console.log(apiKey);
        return 0;
      }
      case 'project:list': {
        printTable(
          ['NAME', 'ID', 'CREATED', 'ACTIVE KEYS'],
          (await projects.listProjects()).map((p) => [p.name, p.id, p.createdAt.toISOString(), String(p.activeKeys)]),
        );
        return 0;
      }
      case 'key:list': {
        if (!args[0]) break;
        const keys = await projects.listApiKeys(args[0]);
        printTable(
          ['ID', 'NAME', 'SCOPE', 'PREFIX', 'CREATED', 'LAST USED', 'REVOKED'],
          keys.map((k) => [k.id, k.name, k.scope, `${k.keyPrefix}...`, k.createdAt.toISOString(), stamp(k.lastUsedAt), stamp(k.revokedAt)]),
        );
        return 0;
      }
      case 'key:revoke': {
        if (!args[0]) break;
        const keyHashes = await revokeKeys(projects, args);
        console.log(keyHashes.length === 0 ? 'no active key matches' : `${keyHashes.length} key${keyHashes.length > 1 ? 's' : ''} revoked`);
        for (const keyHash of keyHashes) {
          const isAnnounced = await announce(config.redis, config.queuePrefix, keyChangeMessage({ kind: 'revoked', keyHash }));
          if (!isAnnounced)
            console.error('warning: Redis unreachable; running replicas refuse the key once their cache expires (AUTH_CACHE_TTL_MS)');
        }
        return keyHashes.length > 0 ? 0 : 1;
      }
      case 'retention:set': {
        if (!args[0] || !args[1]) break;
        return await setRetention(new RetentionRepository(prisma), args[0], args[1]);
      }
      case 'unknown-labels:export': {
        const options = readOptions(args, ['--project', '--out']);
        if (!options?.['--project']) break;
        const lane = new UnknownTemplatesService(new UnknownLaneRepository(prisma));
        return await exportLabels(projects, lane, options['--project'], options['--out']);
      }
    }
    console.error(USAGE);
    return 2;
  } catch (error) {
    console.error(describeCliError(error, config.databaseUrl));
    return 1;
  } finally {
    await prisma.$disconnect();
  }
}

async function setRetention(retention: RetentionRepository, projectName: string, daysText: string): Promise<number> {
  const days = Number(daysText);
  if (!/^[0-9]{1,4}$/.test(daysText) || days < MIN_RETENTION_DAYS || days > MAX_RETENTION_DAYS) {
    console.error(`DAYS must be a whole number from ${MIN_RETENTION_DAYS} to ${MAX_RETENTION_DAYS}, got ${JSON.stringify(daysText)}`);
    return 2;
  }
  if (!(await retention.setRawEventRetentionDaysByName(projectName, days))) {
    console.error(`project "${projectName}" does not exist`);
    return 1;
  }
  console.log(`project ${projectName} keeps its raw events ${days} days from the next maintenance run on`);
  return 0;
}

/** The labelled templates as fixture lines: the lines `GET /v1/unknown-templates/fixtures` answers. */
async function exportLabels(projects: ProjectService, lane: UnknownTemplatesService, project: string, outPath?: string): Promise<number> {
  const projectId = await projects.findProjectId(project);
  if (!projectId) {
    console.error(`project "${project}" does not exist`);
    return 1;
  }
  const lines = await lane.fixtureLines(projectId);
  if (outPath) {
    writeFileSync(outPath, lines.join(''));
    console.error(`${lines.length} labelled template${lines.length === 1 ? '' : 's'} written to ${outPath}`);
  } else {
    // written before main() returns its code: process.exit() does not wait for a write still queued
    await new Promise<void>((resolve) => process.stdout.write(lines.join(''), () => resolve()));
    console.error(`${lines.length} labelled template${lines.length === 1 ? '' : 's'}`);
  }
  return 0;
}

/** `--name value` pairs of the given names; null when an argument is neither one of them nor a value. */
function readOptions(args: string[], names: string[]): Record<string, string> | null {
  const options: Record<string, string> = {};
  for (let index = 0; index < args.length; index += 2) {
    const [name, value] = [args[index], args[index + 1]];
    if (!names.includes(name) || value === undefined || value.startsWith('--')) return null;
    options[name] = value;
  }
  return options;
}

/**
 * Prisma's errors quote the calling code over several lines and say what went wrong on the last: show that line and
 * the database it was about (the usual cause: the CLI run before `npm start` created and migrated it).
 */
function describeCliError(error: unknown, databaseUrl: string): string {
  if (!(error instanceof Error)) return String(error);
  if (!error.name.startsWith('PrismaClient')) return error.message;
  const lastLine = error.message.trim().split('\n').pop() ?? error.message;
  return `${lastLine} (DATABASE_URL ${redactUrl(databaseUrl)}; \`npm start\` creates and migrates it)`;
}

const KEY_ID_PATTERN = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** `PROJECT NAME`, a key id, or the secret itself: a key whose secret is lost can still be revoked. */
async function revokeKeys(projects: ProjectService, args: string[]): Promise<string[]> {
  if (args.length >= 2) return projects.revokeApiKeys({ projectName: args[0], name: args[1] });
  if (KEY_ID_PATTERN.test(args[0])) return projects.revokeApiKeys({ id: args[0].toLowerCase() });
  return (await projects.revokeApiKey(args[0])) ? [hashApiKey(args[0])] : [];
}

function stamp(date: Date | null): string {
  return date ? date.toISOString() : '-';
}

/** Columns padded to their widest cell, so the output reads in a terminal and splits on runs of spaces. */
function printTable(header: string[], rows: string[][]) {
  const widths = header.map((title, column) => Math.max(title.length, ...rows.map((row) => row[column].length)));
  for (const row of [header, ...rows])
    console.log(
      row
        .map((cell, column) => cell.padEnd(widths[column]))
        .join('  ')
        .trimEnd(),
    );
}

/** Running replicas refuse keys their index of active keys lacks (beyond a small budget): tell them of this one now. */
async function announceCreation(redis: RedisTarget, queuePrefix: string, apiKey: string) {
  if (!(await announce(redis, queuePrefix, keyChangeMessage({ kind: 'created', keyHash: hashApiKey(apiKey) })))) {
    console.error('warning: Redis unreachable; running replicas know the new key within 30 s (their next reload of active keys)');
  }
}

/** Running replicas trust verified keys from memory and index active ones: tell them of a change now. */
async function announce(redis: RedisTarget, queuePrefix: string, message: string): Promise<boolean> {
  const broadcast = new RedisBroadcast(redis, keyChangesChannelName(queuePrefix), createRootLogger('silent'));
  const isPublished = await broadcast.publish(message);
  broadcast.close();
  return isPublished;
}

// a rejection (a bad environment) stays unhandled on purpose: Node prints it and exits non-zero
void main(process.argv.slice(2)).then((code) => process.exit(code));
