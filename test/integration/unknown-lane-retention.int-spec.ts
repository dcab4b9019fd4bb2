import { randomUUID } from 'node:crypto';
import { AdvisoryLocks } from '../../src/infra/locks/advisory-lock';
import { rollupCutoff } from '../../src/retention/partition-plan';
import { RetentionRepository } from '../../src/retention/retention.repository';
import { RetentionService } from '../../src/retention/retention.service';
import { MediumModule, startMediumModule } from '../support/medium-module';

const NOW = new Date('2027-03-01T12:00:00.000Z');
const CUTOFF = rollupCutoff(NOW);
const before = (ms: number) => new Date(CUTOFF.getTime() - ms);

/** The unknown lane's tables under retention: unlabelled templates unseen for the rollup period go; labels stay. */
describe('retention of the unknown lane', () => {
  let medium: MediumModule;
  let retention: RetentionService;

  beforeAll(async () => {
    medium = await startMediumModule([RetentionService, RetentionRepository, AdvisoryLocks]);
    retention = medium.module.get(RetentionService);
  });
  afterAll(async () => {
    await medium.close();
  });

  const insertTemplate = async (projectId: string, lastSeen: Date, template = `template ${randomUUID()}`) => {
    const id = randomUUID();
    await medium.db.sql.query(
      `INSERT INTO unknown_templates (project_id, id, template, count, first_seen, last_seen, sample_event_ids, example_tool, example_message)
       VALUES ($1, $2, $3, 1, $4, $4, '{}', 'lookup', $3)`,
      [projectId, id, template, lastSeen],
    );
    return id;
  };
  const label = (projectId: string, templateId: string) =>
    medium.db.sql.query(`INSERT INTO template_labels (project_id, template_id, category) VALUES ($1, $2, 'runtime_error')`, [
      projectId,
      templateId,
    ]);
  const templatesOf = async (projectId: string) =>
    (await medium.db.sql.query<{ id: string }>('SELECT id FROM unknown_templates WHERE project_id = $1 ORDER BY id', [projectId])).rows
      .map((row) => row.id)
      .sort();
  const labelsOf = async (projectId: string) =>
    (await medium.db.sql.query<{ template_id: string }>('SELECT template_id FROM template_labels WHERE project_id = $1', [projectId])).rows
      .map((row) => row.template_id)
      .sort();

  it('deletes each project’s unlabelled templates last seen before the rollup cut-off, in bounded batches, and keeps labels and what they label', async () => {
    const project = await medium.aProject();
    const other = await medium.aProject();
    const expired = [
      await insertTemplate(project, before(1)),
      await insertTemplate(project, before(86_400_000)),
      await insertTemplate(project, before(1000)),
    ];
    const labelledOld = await insertTemplate(project, before(86_400_000 * 30));
    await label(project, labelledOld);
    const orphanLabel = randomUUID();
    await label(project, orphanLabel);
    const atCutoff = await insertTemplate(project, CUTOFF);
    const recent = await insertTemplate(project, new Date(NOW.getTime() - 3_600_000));
    await insertTemplate(other, before(1));
    const otherRecent = await insertTemplate(other, NOW);

    const report = await retention.runMaintenance(NOW, 2);

    expect(report.deletedUnknownTemplates).toBe(expired.length + 1);
    expect(report.largestDelete).toBeLessThanOrEqual(2);
    expect(await templatesOf(project)).toEqual([labelledOld, atCutoff, recent].sort());
    expect(await labelsOf(project)).toEqual([labelledOld, orphanLabel].sort());
    expect(await templatesOf(other)).toEqual([otherRecent]);
  });

  it('a later run finds nothing more to delete, and keeps a template last seen at the cut-off', async () => {
    const project = await medium.aProject();
    const kept = await insertTemplate(project, CUTOFF);

    const report = await retention.runMaintenance(NOW, 2);

    expect(report.deletedUnknownTemplates).toBe(0);
    expect(await templatesOf(project)).toEqual([kept]);
  });
});
