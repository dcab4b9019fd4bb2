import { RegistryChange, RegistryChangesChannel } from '../../src/registry/serving/registry-changes.channel';
import { ToolDefinition } from '../../src/registry/registry.types';
import { ToolChangesService } from '../../src/registry/tools/tool-changes.service';
import { ToolSchemaRepository } from '../../src/registry/tools/tool-schema.repository';
import { ToolRepository } from '../../src/registry/tools/tool.repository';
import { RolloutPolicyRepository } from '../../src/registry/serving/rollout-policy.repository';
import { MediumModule, startMediumModule } from '../support/medium-module';

/**
 * The registry's writes in process: the real service, repository and change channel against this file's cloned
 * database and a Redis channel of its own. Each change is read back as an agent gets it (the served snapshot).
 */
describe('ToolChangesService with ToolRepository', () => {
  let medium: MediumModule;
  let changes: ToolChangesService;
  let tools: ToolRepository;
  const published: RegistryChange[] = [];
  const aProject = () => medium.aProject();

  beforeAll(async () => {
    medium = await startMediumModule([
      ToolRepository,
      ToolSchemaRepository,
      RolloutPolicyRepository,
      RegistryChangesChannel,
      ToolChangesService,
    ]);
    changes = medium.module.get(ToolChangesService);
    tools = medium.module.get(ToolRepository);
    await medium.module.get(RegistryChangesChannel).listen({
      onRegistryChange: (change) => published.push(change),
      onRegistryChangesMissed: () => undefined,
    });
  });
  afterAll(() => medium?.close());

  const weather = (overrides: Partial<ToolDefinition> = {}): ToolDefinition => ({
    name: 'get_weather',
    description: 'Current weather for a city.',
    parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
    ...overrides,
  });

  it('registers a new tool as version 1, served as registered', async () => {
    const projectId = await aProject();
    expect(await changes.registerTool(projectId, weather())).toMatchObject({ name: 'get_weather', version: 1, status: 'created' });
    const served = await tools.findServedTool(projectId, 'get_weather', null);
    expect(served?.view).toMatchObject({ name: 'get_weather', version: 1, baseDescription: 'Current weather for a city.' });
    expect(published).toContainEqual({ projectId, tool: 'get_weather' });
  });

  it('answers an identical re-registration as unchanged without a new version', async () => {
    const projectId = await aProject();
    await changes.registerTool(projectId, weather());
    expect(await changes.registerTool(projectId, weather())).toMatchObject({ name: 'get_weather', version: 1, status: 'unchanged' });
    expect(await versionsOf(projectId)).toEqual([1]);
  });

  it('keeps the stored schema when an equivalent one comes with a new description, and when the tool is restored', async () => {
    const projectId = await aProject();
    const pydantic = { ...weather().parameters, title: 'get_weather', properties: { city: { type: 'string', title: 'City' } } };
    const zod = { $schema: 'https://json-schema.org/draft/2020-12/schema', ...weather().parameters };
    await changes.registerTool(projectId, weather({ parameters: pydantic }));
    const description = 'Current weather for a city, in Celsius.';
    expect(await changes.registerTool(projectId, weather({ description, parameters: zod }))).toMatchObject({
      version: 2,
      status: 'updated',
      schema: { kept: 'current', reason: 'equivalent', differences: ['$schema', 'title'] },
    });
    expect((await tools.findServedTool(projectId, 'get_weather', null))?.view).toMatchObject({
      version: 2,
      baseDescription: description,
      parameters: pydantic,
    });
    await changes.archiveTool(projectId, 'get_weather');
    expect(await changes.registerTool(projectId, weather({ description, parameters: zod }))).toMatchObject({
      version: 2,
      status: 'restored',
      schema: { kept: 'current', reason: 'equivalent' },
    });
    expect(await versionsOf(projectId)).toEqual([1, 2]);
  });

  it('stores a changed description as a new version and keeps serving the earlier one on request', async () => {
    const projectId = await aProject();
    await changes.registerTool(projectId, weather());
    const description = 'Current weather for a city. Give the city name in English.';
    expect(await changes.registerTool(projectId, weather({ description }))).toMatchObject({
      name: 'get_weather',
      version: 2,
      status: 'updated',
    });
    expect(await versionsOf(projectId)).toEqual([1, 2]);
    expect((await tools.findServedTool(projectId, 'get_weather', null))?.view).toMatchObject({ version: 2, baseDescription: description });
    expect((await tools.findServedTool(projectId, 'get_weather', 1))?.view).toMatchObject({
      version: 1,
      baseDescription: 'Current weather for a city.',
    });
    expect(await tools.findServedTool(projectId, 'get_weather', 3)).toBeNull();
  });

  it('archives a tool: no longer served or listed, its versions kept, and registering it again brings it back', async () => {
    const projectId = await aProject();
    await changes.registerTool(projectId, weather());
    await changes.registerTool(projectId, weather({ name: 'get_time', description: 'The time in a city.' }));
    expect(await changes.archiveTool(projectId, 'get_weather')).toBe(true);
    expect(await tools.findServedTool(projectId, 'get_weather', null)).toBeNull();
    expect((await tools.listServedTools(projectId)).map((tool) => tool.view.name)).toEqual(['get_time']);
    expect(await versionsOf(projectId)).toEqual([1]);
    expect(await changes.archiveTool(projectId, 'never_registered')).toBe(false);
    expect(await changes.registerTool(projectId, weather())).toMatchObject({ name: 'get_weather', status: 'restored' });
    expect((await tools.listServedTools(projectId)).map((tool) => tool.view.name)).toEqual(['get_time', 'get_weather']);
  });

  /** Version numbers stored for get_weather. */
  async function versionsOf(projectId: string): Promise<number[]> {
    const { rows } = await medium.db.sql.query<{ version: number }>(
      `SELECT v.version FROM tool_versions v JOIN tools t ON t.id = v.tool_id
       WHERE t.project_id = $1 AND t.name = 'get_weather' ORDER BY v.version`,
      [projectId],
    );
    return rows.map((row) => row.version);
  }
});
