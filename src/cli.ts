import 'reflect-metadata';
import { loadConfig } from './config/config';
import { RedisTarget } from './config/redis-settings';
import { createRootLogger } from './infra/logging/logger';
import { RedisBroadcast } from './infra/redis/redis-broadcast';
import { revocationChannelName } from './tenancy/api-key-revocations.channel';
import { hashApiKey } from './tenancy/api-key';
import { PrismaService } from './infra/prisma/prisma.service';
import { ProjectRepository } from './tenancy/project.repository';
import { ProjectExistsError, ProjectService } from './tenancy/project.service';

const USAGE = `Usage: npm run cli -- <command>
  project:create NAME          create a project and print its first API key (shown once), as TOOLCOACH_API_KEY
  key:create PROJECT [NAME]    create another API key for a project and print it
  key:revoke KEY               revoke an API key at once`;

async function main(argv: string[]): Promise<number> {
  const [command, ...args] = argv;
  const config = loadConfig(process.env);
  const prisma = new PrismaService(config);
  const projects = new ProjectService(new ProjectRepository(prisma));
  try {
    switch (command) {
      case 'project:create': {
        if (!args[0]) break;
        const { projectId, apiKey } = await projects.createProject(args[0]);
        console.log(`project ${args[0]} created (id ${projectId})`);
        console.log(`API key (shown once, store it now): ${apiKey}`);
        // the one name both SDKs, the demo and the OpenTelemetry examples read the key from
        console.log(`export TOOLCOACH_API_KEY=${apiKey}`);
        return 0;
      }
      case 'key:create': {
        if (!args[0]) break;
        console.log(await projects.createKeyForProject(args[0], args[1] ?? 'cli'));
        return 0;
      }
      case 'key:revoke': {
        if (!args[0]) break;
        const revoked = await projects.revokeApiKey(args[0]);
        console.log(revoked ? 'key revoked' : 'no active key matches');
        if (revoked) await announceRevocation(config.redis, config.queuePrefix, hashApiKey(args[0]));
        return revoked ? 0 : 1;
      }
    }
    console.error(USAGE);
    return 2;
  } catch (error) {
    console.error(error instanceof ProjectExistsError || error instanceof Error ? error.message : error);
    return 1;
  } finally {
    await prisma.$disconnect();
  }
}

/** Running replicas trust verified keys from memory; tell them to forget this one now. */
async function announceRevocation(redis: RedisTarget, queuePrefix: string, keyHash: string) {
  const broadcast = new RedisBroadcast(redis, revocationChannelName(queuePrefix), createRootLogger('silent'));
  if (!(await broadcast.publish(keyHash))) {
    console.error('warning: Redis unreachable; running replicas refuse the key once their cache expires (AUTH_CACHE_TTL_MS)');
  }
  broadcast.close();
}

// a rejection (a bad environment) stays unhandled on purpose: Node prints it and exits non-zero
void main(process.argv.slice(2)).then((code) => process.exit(code));
