import { hashApiKey } from '../../src/tenancy/api-key';
import { ProjectRepository } from '../../src/tenancy/project.repository';
import { MediumModule, startMediumModule } from '../support/medium-module';

describe('ProjectRepository.upsertApiKey', () => {
  let medium: MediumModule;
  let repository: ProjectRepository;

  beforeAll(async () => {
    medium = await startMediumModule([ProjectRepository]);
    repository = medium.module.get(ProjectRepository);
  });
  afterAll(() => medium?.close());

  it('creates a key once when replicas starting together all ask for it, and none of them fails', async () => {
    const projectId = await medium.aProject();
    const keyHash = hashApiKey('tc_replicas_key');
    const starts = Array.from({ length: 16 }, () => repository.upsertApiKey(projectId, keyHash, 'tc_repl', 'development'));
    await expect(Promise.all(starts)).resolves.toHaveLength(16);
    const { rows } = await medium.db.sql.query('SELECT project_id, name FROM api_keys WHERE key_hash = $1', [keyHash]);
    expect(rows).toEqual([{ project_id: projectId, name: 'development' }]);
  });
});
