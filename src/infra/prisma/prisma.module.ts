import { Global, Module } from '@nestjs/common';
import { PrismaService } from './prisma.service';
import { ReadPrismaService } from './read-prisma.service';

/** The primary (every write, and reads of what was just written) and the dashboard's reads (a replica when configured). */
@Global()
@Module({ providers: [PrismaService, ReadPrismaService], exports: [PrismaService, ReadPrismaService] })
export class PrismaModule {}
