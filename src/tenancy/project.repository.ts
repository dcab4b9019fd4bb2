import { Injectable } from '@nestjs/common';
import { PrismaService } from '../infra/prisma/prisma.service';

export interface AuthenticatedProject {
  projectId: string;
  projectName: string;
  apiKeyId: string;
}

@Injectable()
export class ProjectRepository {
  constructor(private readonly prisma: PrismaService) {}

  async findProjectByKeyHash(keyHash: string): Promise<AuthenticatedProject | null> {
    const key = await this.prisma.apiKey.findUnique({
      where: { keyHash },
      select: { id: true, revokedAt: true, project: { select: { id: true, name: true } } },
    });
    if (!key || key.revokedAt) return null;
    return { projectId: key.project.id, projectName: key.project.name, apiKeyId: key.id };
  }

  async findProjectByName(name: string): Promise<{ id: string } | null> {
    return this.prisma.project.findUnique({ where: { name }, select: { id: true } });
  }

  async insertProject(name: string): Promise<{ id: string }> {
    return this.prisma.project.create({ data: { name }, select: { id: true } });
  }

  /** Creates the key unless one with this hash exists (startup may run on several replicas at once). */
  async upsertApiKey(projectId: string, keyHash: string, keyPrefix: string, name: string): Promise<void> {
    await this.prisma.apiKey.upsert({
      where: { keyHash },
      create: { projectId, keyHash, keyPrefix, name },
      update: {},
    });
  }

  async revokeApiKey(keyHash: string): Promise<boolean> {
    const { count } = await this.prisma.apiKey.updateMany({
      where: { keyHash, revokedAt: null },
      data: { revokedAt: new Date() },
    });
    return count > 0;
  }
}
