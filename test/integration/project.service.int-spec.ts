import { hashApiKey } from '../../src/tenancy/api-key';
import { ApiKeyChangesChannel } from '../../src/tenancy/api-key-changes.channel';
import { ProjectRepository } from '../../src/tenancy/project.repository';
import { ProjectService } from '../../src/tenancy/project.service';
import { MediumModule, startMediumModule } from '../support/medium-module';

// The verified-key cache under load: AUTH_CACHE_TTL_MS is 30 s here (the default).
const TTL_MS = 30_000;

describe('ProjectService: verified keys under concurrent requests', () => {
  let medium: MediumModule;
  let service: ProjectService;
  let repository: ProjectRepository;

  beforeAll(async () => {
    medium = await startMediumModule([ProjectRepository, ApiKeyChangesChannel, ProjectService]);
    service = medium.module.get(ProjectService);
    repository = medium.module.get(ProjectRepository);
  });
  afterAll(() => medium?.close());
  afterEach(() => jest.restoreAllMocks());

  async function aKey(): Promise<string> {
    const projectId = await medium.aProject();
    const { rows } = await medium.db.sql.query<{ name: string }>('SELECT name FROM projects WHERE id = $1', [projectId]);
    return service.createKeyForProject(rows[0].name, 'load');
  }

  it('asks the database once for a key that 200 concurrent requests bring, and answers them all', async () => {
    const key = await aKey();
    const lookups = jest.spyOn(repository, 'findProjectByKeyHash');
    const answers = await Promise.all(Array.from({ length: 200 }, () => service.authenticate(key)));
    expect(lookups).toHaveBeenCalledTimes(1);
    expect(new Set(answers.map((project) => project?.projectId)).size).toBe(1);
    expect(answers[0]).not.toBeNull();
  });

  it('asks once for an unknown key that many requests bring at once', async () => {
    const lookups = jest.spyOn(repository, 'findProjectByKeyHash');
    const answers = await Promise.all(Array.from({ length: 50 }, () => service.authenticate('tc_not_a_key_of_anyone')));
    expect(answers.every((project) => project === null)).toBe(true);
    expect(lookups).toHaveBeenCalledTimes(1);
  });

  it('looks a key in use up again before its entry expires, so requests never wait when it would have', async () => {
    const key = await aKey();
    const startedAt = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(startedAt);
    const project = await service.authenticate(key);
    const lookups = jest.spyOn(repository, 'findProjectByKeyHash');

    clock.mockReturnValue(startedAt + TTL_MS * 0.5);
    expect(service.recentlyVerified(key)).toEqual(project);
    expect(lookups).not.toHaveBeenCalled();

    // the last quarter: answered from memory, and one lookup starts whatever the number of reads
    clock.mockReturnValue(startedAt + TTL_MS * 0.8);
    for (let read = 0; read < 20; read++) expect(service.recentlyVerified(key)).toEqual(project);
    expect(lookups).toHaveBeenCalledTimes(1);
    await lookups.mock.results[0].value;

    // past the first entry's expiry: the refreshed one answers
    clock.mockReturnValue(startedAt + TTL_MS + 1000);
    expect(service.recentlyVerified(key)).toEqual(project);
    expect(lookups).toHaveBeenCalledTimes(1);
  });

  it('does not cache a key again from a lookup that a revocation overtook', async () => {
    const key = await aKey();
    let release: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let markRead: () => void = () => undefined;
    const read = new Promise<void>((resolve) => (markRead = resolve));
    const findProjectByKeyHash = repository.findProjectByKeyHash.bind(repository);
    jest.spyOn(repository, 'findProjectByKeyHash').mockImplementation(async (keyHash) => {
      const project = await findProjectByKeyHash(keyHash);
      markRead();
      await gate;
      return project;
    });
    const lookup = service.authenticate(key);
    // revoked after the lookup read the key as valid, before it answered
    await read;
    await expect(service.revokeApiKey(key)).resolves.toBe(true);
    release();
    await expect(lookup).resolves.not.toBeNull();
    expect(service.recentlyVerified(key)).toBeUndefined();
    jest.restoreAllMocks();
    await expect(service.authenticate(key)).resolves.toBeNull();
  });

  it('forgets a key that the database says was revoked when its background lookup answers', async () => {
    const key = await aKey();
    const startedAt = Date.now();
    const clock = jest.spyOn(Date, 'now').mockReturnValue(startedAt);
    await service.authenticate(key);
    // revoked where no announcement reaches this replica (another deployment's CLI, a lost message)
    await medium.db.sql.query('UPDATE api_keys SET revoked_at = now() WHERE key_hash = $1', [hashApiKey(key)]);
    const lookups = jest.spyOn(repository, 'findProjectByKeyHash');
    clock.mockReturnValue(startedAt + TTL_MS * 0.9);
    expect(service.recentlyVerified(key)).toBeDefined();
    await lookups.mock.results[0].value;
    expect(service.recentlyVerified(key)).toBeUndefined();
    await expect(service.authenticate(key)).resolves.toBeNull();
  });
});
