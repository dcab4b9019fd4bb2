import type { Provider } from '@nestjs/common';
import { Test, TestingModule } from '@nestjs/testing';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { loadConfig } from '../../src/config/config';
import { APP_CONFIG } from '../../src/config/config.module';
import { ROOT_LOGGER } from '../../src/infra/logging/logging.module';
import { PrismaService } from '../../src/infra/prisma/prisma.service';
import { SqlPoolService } from '../../src/infra/prisma/sql-pool.service';
import { createTestDatabase, TestDatabase } from './test-database';
import { REDIS_URL } from './test-env';

/** The "medium" test layer: real repositories and services in process, on this file's cloned database. */
export interface MediumModule {
  db: TestDatabase;
  module: TestingModule;
  /** A new project row, so a test's counts are its own. */
  aProject(): Promise<string>;
  close(): Promise<void>;
}

/**
 * Compiles a testing module of `providers` with the config, a silent root logger and the Prisma and SQL pool services wired to a
 * database cloned for the caller (and a Redis prefix of its own). Call from beforeAll; close() from afterAll.
 */
export async function startMediumModule(providers: Provider[]): Promise<MediumModule> {
  const db = await createTestDatabase();
  try {
    const config = loadConfig({
      NODE_ENV: 'test',
      DATABASE_URL: db.url,
      REDIS_URL,
      LOG_LEVEL: 'silent',
      QUEUE_PREFIX: `tc-test-${randomBytes(4).toString('hex')}`,
    });
    const module = await Test.createTestingModule({
      providers: [
        { provide: APP_CONFIG, useValue: config },
        { provide: ROOT_LOGGER, useValue: pino({ level: 'silent' }) },
        PrismaService,
        SqlPoolService,
        ...providers,
      ],
    }).compile();
    return {
      db,
      module,
      async aProject() {
        const { rows } = await db.sql.query<{ id: string }>('INSERT INTO projects (name) VALUES (gen_random_uuid()::text) RETURNING id');
        return rows[0].id;
      },
      async close() {
        await module.close();
        await db.drop();
      },
    };
  } catch (error) {
    await db.drop();
    throw error;
  }
}
