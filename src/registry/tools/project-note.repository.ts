import { Injectable } from '@nestjs/common';
import { Prisma } from '../../generated/prisma/client';
import { PrismaService } from '../../infra/prisma/prisma.service';

/** A project-level note for people: something the nightly saw that no tool's warning can carry. */
export interface ProjectNote {
  kind: string;
  /** What the note is about, e.g. the called tool name. */
  subject: string;
  text: string;
  evidence: Record<string, unknown>;
}

export interface StoredProjectNote extends ProjectNote {
  updatedAt: Date;
}

@Injectable()
export class ProjectNoteRepository {
  constructor(private readonly prisma: PrismaService) {}

  findNotes(projectId: string): Promise<StoredProjectNote[]> {
    return this.prisma.projectNote.findMany({
      where: { projectId },
      orderBy: [{ kind: 'asc' }, { subject: 'asc' }],
      select: { kind: true, subject: true, text: true, evidence: true, updatedAt: true },
    }) as Promise<StoredProjectNote[]>;
  }

  /** Replaces every note of `kind` with `notes`; true when anything was there or is now. */
  async replaceNotes(projectId: string, kind: string, notes: readonly Omit<ProjectNote, 'kind'>[], at: Date): Promise<boolean> {
    const [removed, created] = await this.prisma.$transaction([
      this.prisma.projectNote.deleteMany({ where: { projectId, kind } }),
      this.prisma.projectNote.createMany({
        data: notes.map((note) => ({
          projectId,
          kind,
          subject: note.subject,
          text: note.text,
          evidence: note.evidence as Prisma.InputJsonObject,
          updatedAt: at,
        })),
      }),
    ]);
    return removed.count > 0 || created.count > 0;
  }
}
