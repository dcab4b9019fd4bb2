import { Injectable } from '@nestjs/common';
import { PrismaService } from '../../infra/prisma/prisma.service';

export interface ToolSchemaRow {
  name: string;
  version: number;
  parameters: Record<string, unknown> | null;
}

export interface ToolDefinitionRow {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

export interface RegisteredDefinitionRow extends ToolDefinitionRow {
  version: number;
}

@Injectable()
export class ToolSchemaRepository {
  constructor(private readonly prisma: PrismaService) {}

  async findActiveToolSchemas(projectId: string, names: readonly string[]): Promise<ToolSchemaRow[]> {
    if (names.length === 0) return [];
    const rows = await this.prisma.tool.findMany({
      where: { projectId, name: { in: [...names] }, archivedAt: null },
      select: { name: true, version: true, parameters: true },
    });
    return rows.map((row) => ({
      name: row.name,
      version: row.version,
      parameters: isObject(row.parameters) ? row.parameters : null,
    }));
  }

  /** The active tools among `names` as registered: their own descriptions (without warnings), schemas and versions. */
  async findActiveDefinitionsByName(projectId: string, names: readonly string[]): Promise<RegisteredDefinitionRow[]> {
    if (names.length === 0) return [];
    const rows = await this.prisma.tool.findMany({
      where: { projectId, name: { in: [...names] }, archivedAt: null },
      select: { name: true, version: true, description: true, parameters: true },
    });
    return rows.map((row) => ({ ...row, parameters: isObject(row.parameters) ? row.parameters : {} }));
  }

  /** The active tools' own descriptions (without warnings) and schemas, by name, at most `limit`. */
  async findActiveToolDefinitions(projectId: string, limit: number): Promise<ToolDefinitionRow[]> {
    const rows = await this.prisma.tool.findMany({
      where: { projectId, archivedAt: null },
      select: { name: true, description: true, parameters: true },
      orderBy: { name: 'asc' },
      take: limit,
    });
    return rows.map((row) => ({
      name: row.name,
      description: row.description,
      parameters: isObject(row.parameters) ? row.parameters : {},
    }));
  }

  /** The own descriptions (without warnings) of the active tools among `names`. */
  async findActiveToolDescriptions(projectId: string, names: readonly string[]): Promise<Array<{ name: string; description: string }>> {
    return this.prisma.tool.findMany({
      where: { projectId, name: { in: [...names] }, archivedAt: null },
      select: { name: true, description: true },
    });
  }

  async findActiveToolNames(projectId: string): Promise<string[]> {
    const rows = await this.prisma.tool.findMany({
      where: { projectId, archivedAt: null },
      select: { name: true },
      orderBy: { name: 'asc' },
    });
    return rows.map((row) => row.name);
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
