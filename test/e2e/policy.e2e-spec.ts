import { startTestApp, TestApp } from '../support/test-app';

const VALID_POLICY = {
  autoApply: false,
  minOccurrences: 10,
  minShare: 0.2,
  autoApplyKinds: ['learned_limit'],
  autoRetire: false,
  warningTokenCap: 120,
  reviewMode: false,
};

/** PUT /v1/policy over HTTP: a body with a bad or unknown field is refused as a whole, naming each bad field. */
describe('PUT /v1/policy', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ROLES: 'api' });
  });
  afterAll(() => t.close());

  const putPolicy = (body: unknown) => t.request('PUT', '/v1/policy', { body });

  it('rejects an unknown field with 400 invalid_policy naming /retireAfterDays as not a known field', async () => {
    const response = await putPolicy({ ...VALID_POLICY, retireAfterDays: 7 });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({
      code: 'invalid_policy',
      details: [{ path: '/retireAfterDays', message: 'is not a known field' }],
    });
  });

  it.each([
    { field: 'autoApply', given: 'the string "yes"', value: 'yes', message: 'must be boolean' },
    { field: 'minOccurrences', given: 'a fraction', value: 2.5, message: 'must be integer' },
    { field: 'minShare', given: 'a number in a string', value: '0.2', message: 'must be number' },
    { field: 'autoApplyKinds', given: 'one kind not in an array', value: 'learned_limit', message: 'must be array' },
    { field: 'autoRetire', given: 'null', value: null, message: 'must be boolean' },
    { field: 'warningTokenCap', given: 'a negative number', value: -1, message: 'must be >= 0' },
    { field: 'reviewMode', given: 'the number 1', value: 1, message: 'must be boolean' },
  ])('rejects $field given $given with 400 invalid_policy naming /$field', async ({ field, value, message }) => {
    const response = await putPolicy({ ...VALID_POLICY, [field]: value });
    expect(response.status).toBe(400);
    expect(response.body.error).toMatchObject({ code: 'invalid_policy', details: [{ path: `/${field}`, message }] });
  });

  it('rejects an unknown kind and an unknown field in one answer, each named; a missing field is no error (a partial update)', async () => {
    const { autoRetire: _missing, ...withoutAutoRetire } = VALID_POLICY;
    const response = await putPolicy({ ...withoutAutoRetire, autoApplyKinds: ['learned_limit', 'guess'], extra: true });
    expect(response.status).toBe(400);
    expect(response.body.error.code).toBe('invalid_policy');
    expect(response.body.error.details).toEqual(
      expect.arrayContaining([
        { path: '/extra', message: 'is not a known field' },
        { path: '/autoApplyKinds/1', message: expect.stringMatching(/^must be one of "wrong_argument_name", .*"learned_limit"/) },
      ]),
    );
    expect(response.body.error.details).toHaveLength(2);
  });

  it('stores a valid policy (200, answered as stored), reads it back equal, and a rejected one changes nothing', async () => {
    const stored = await putPolicy(VALID_POLICY);
    expect(stored.status).toBe(200);
    expect(stored.body).toEqual(VALID_POLICY);
    expect((await t.request('GET', '/v1/policy')).body).toEqual(VALID_POLICY);

    expect((await putPolicy({ ...VALID_POLICY, autoApply: 'yes', minShare: 0.9 })).status).toBe(400);
    expect((await t.request('GET', '/v1/policy')).body).toEqual(VALID_POLICY);

    const other = await t.createProject(`policy-other-${Date.now()}`);
    const theirs = await t.request('GET', '/v1/policy', { key: other.apiKey });
    expect(theirs.status).toBe(200);
    expect(theirs.body).toMatchObject({ autoApply: true, minOccurrences: 5 });
  });
});

/** An id the uuid column cannot hold is a 404 like any unknown id, never a 500 from the query it would make. */
describe('POST /v1/recommendations/:id/apply and /dismiss with an id that is not a UUID', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ ROLES: 'api' });
  });
  afterAll(() => t.close());

  it.each([
    ['36 hyphens', '-'.repeat(36)],
    ['36 hex digits without hyphens', 'a'.repeat(36)],
    ['a UUID with its hyphens moved', '0123456789ab-cdef-0123-4567-89abcdef0123'.slice(0, 36)],
  ])('answers 404 not_found for %s', async (_case, id) => {
    for (const action of ['apply', 'dismiss']) {
      const response = await t.request('POST', `/v1/recommendations/${id}/${action}`);
      expect({ action, status: response.status, code: response.body.error?.code }).toEqual({ action, status: 404, code: 'not_found' });
    }
  });
});
