import { createHash } from 'node:crypto';

/** Schemas remembered per project, and projects remembered, at most: about 130,000 digests (under 20 MB) in all. */
export const MAX_ADMITTED_PER_PROJECT = 2048;
export const MAX_REMEMBERED_PROJECTS = 64;

/**
 * The schemas this process admitted lately, per project, by the SHA-256 of their JSON text. Agents register their whole
 * tool list at every start-up, and compiling a schema is most of what a registration costs: an exact text admitted
 * before is admitted again without a compile. Only admissions are remembered (a refusal may be the budget's, which
 * depends on the load), each project in a space of its own and least recently used first out, so one project's
 * registrations can cost another a compile but never change its outcome.
 */
export class AdmittedSchemas {
  /** Map order is recency order: a hit moves its key (and its project) to the end. */
  private readonly projects = new Map<string, Map<string, true>>();

  constructor(
    private readonly maxPerProject = MAX_ADMITTED_PER_PROJECT,
    private readonly maxProjects = MAX_REMEMBERED_PROJECTS,
  ) {}

  static digestOf(schemaJson: string): string {
    return createHash('sha256').update(schemaJson).digest('base64');
  }

  has(projectId: string, digest: string): boolean {
    const schemas = this.projects.get(projectId);
    if (!schemas?.has(digest)) return false;
    this.touch(projectId, schemas);
    schemas.delete(digest);
    schemas.set(digest, true);
    return true;
  }

  remember(projectId: string, digest: string): void {
    const schemas = this.projects.get(projectId) ?? new Map<string, true>();
    this.touch(projectId, schemas);
    schemas.delete(digest);
    schemas.set(digest, true);
    if (schemas.size > this.maxPerProject) schemas.delete(schemas.keys().next().value as string);
    if (this.projects.size > this.maxProjects) this.projects.delete(this.projects.keys().next().value as string);
  }

  private touch(projectId: string, schemas: Map<string, true>): void {
    this.projects.delete(projectId);
    this.projects.set(projectId, schemas);
  }
}
