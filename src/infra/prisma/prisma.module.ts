import { Global, Module } from '@nestjs/common';
import { PrismaService } from './prisma.service';
import { ReadPrismaService } from './read-prisma.service';
import { SqlPoolService } from './sql-pool.service';

/**
 * The primary (every write, and reads of what was just written), the dashboard's reads (a replica when configured), and
 * plain node-postgres transactions on the primary for the worker's hot write path.
 */
@Global()
@Module({ providers: [PrismaService, ReadPrismaService, SqlPoolService], exports: [PrismaService, ReadPrismaService, SqlPoolService] })
export class PrismaModule {}
