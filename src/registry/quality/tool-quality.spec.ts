import { judgeProjectTools, judgeTool, SEVERITY_WEIGHT } from './tool-quality';
import type { JudgedTool, QualityFinding } from './tool-quality.types';

// Real tool definitions, as their projects publish them (the source of each is recorded beside it), and what the
// checker must find in each: kind@path for every finding, nothing more.
interface Case {
  source: string;
  tool: JudgedTool;
  siblings?: JudgedTool[];
  findings: string[];
  additions?: string[];
}

const CASES: Case[] = [
  {
    source: "this project's origin story (issue 23): the tool as it was registered when agents sent numbers: [12, 15, 18]",
    tool: {
      name: 'prime_factorization',
      description: 'Perform prime factorization of a number',
      parameters: { type: 'object', properties: { number: { type: 'integer' } } },
    },
    findings: [
      'batchable_single_value@/parameters/properties/number',
      'parameter_without_description@/parameters/properties/number',
      'unbounded_number@/parameters/properties/number',
      'required_not_declared@/parameters/required',
      'no_usage_example@/description',
    ],
    additions: ['Pass a single integer; call this tool once per number.', 'Example call: {"number":12}'],
  },
  {
    source: 'modelcontextprotocol/servers src/brave-search/index.ts (WEB_SEARCH_TOOL)',
    tool: {
      name: 'brave_web_search',
      description:
        'Performs a web search using the Brave Search API, ideal for general queries, news, articles, and online content. ' +
        'Use this for broad information gathering, recent events, or when you need diverse web sources. ' +
        'Supports pagination, content filtering, and freshness controls. Maximum 20 results per request, with offset for pagination. ',
      parameters: {
        type: 'object',
        properties: {
          query: { type: 'string', description: 'Search query (max 400 chars, 50 words)' },
          count: { type: 'number', description: 'Number of results (1-20, default 10)', default: 10 },
          offset: { type: 'number', description: 'Pagination offset (max 9, default 0)', default: 0 },
        },
        required: ['query'],
      },
    },
    findings: [
      'description_contradicts_schema@/parameters/properties/query',
      'unbounded_number@/parameters/properties/count',
      'unbounded_number@/parameters/properties/offset',
      'no_usage_example@/description',
    ],
    additions: ['Pass one query in `query`; for several queries, call this tool once for each.'],
  },
  {
    source: 'modelcontextprotocol/servers src/filesystem/index.ts (read_file; zod-generated schema, no property description)',
    tool: {
      name: 'read_file',
      description:
        'Read the complete contents of a file from the file system. Handles various text encodings and provides detailed error ' +
        'messages if the file cannot be read. Use this tool when you need to examine the contents of a single file. Only works ' +
        'within allowed directories.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
    findings: [
      'parameter_without_description@/parameters/properties/path',
      'name_differs_from_description@/parameters/properties/path',
      'no_usage_example@/description',
    ],
    additions: ['Pass the file as `path`.'],
  },
  {
    source: 'modelcontextprotocol/servers src/filesystem/index.ts (read_multiple_files)',
    tool: {
      name: 'read_multiple_files',
      description:
        'Read the contents of multiple files simultaneously. This is more efficient than reading files one by one when you need ' +
        "to analyze or compare multiple files. Each file's content is returned with its path as a reference. Failed reads for " +
        "individual files won't stop the entire operation. Only works within allowed directories.",
      parameters: { type: 'object', properties: { paths: { type: 'array', items: { type: 'string' } } }, required: ['paths'] },
    },
    findings: [
      'parameter_without_description@/parameters/properties/paths',
      'array_without_max_items@/parameters/properties/paths',
      'no_usage_example@/description',
    ],
  },
  {
    source: 'gorilla-llm BFCL v3, BFCL_v3_simple.json simple_0',
    tool: {
      name: 'calculate_triangle_area',
      description: 'Calculate the area of a triangle given its base and height.',
      parameters: {
        type: 'object',
        properties: {
          base: { type: 'integer', description: 'The base of the triangle.' },
          height: { type: 'integer', description: 'The height of the triangle.' },
          unit: { type: 'string', description: "The unit of measure (defaults to 'units' if not specified)" },
        },
        required: ['base', 'height'],
      },
    },
    findings: ['closed_set_without_enum@/parameters/properties/unit', 'no_usage_example@/description'],
  },
  {
    source: 'OpenAI function calling guide (platform.openai.com/docs/guides/function-calling), get_weather',
    tool: {
      name: 'get_weather',
      description: 'Get current temperature for a given location.',
      parameters: {
        type: 'object',
        properties: { location: { type: 'string', description: 'City and country e.g. Bogotá, Colombia' } },
        required: ['location'],
        additionalProperties: false,
      },
    },
    findings: ['batchable_single_value@/parameters/properties/location', 'no_usage_example@/description'],
    additions: ['Pass a single location; call this tool once per location.'],
  },
  {
    source: 'modelcontextprotocol/servers src/github (get_issue)',
    tool: {
      name: 'get_issue',
      description: 'Get details of a specific issue in a GitHub repository.',
      parameters: {
        type: 'object',
        properties: {
          owner: { type: 'string', description: 'Repository owner' },
          repo: { type: 'string', description: 'Repository name' },
          issue_number: { type: 'number', description: 'The number of the issue' },
        },
        required: ['owner', 'repo', 'issue_number'],
      },
    },
    findings: [
      'unbounded_number@/parameters/properties/issue_number',
      'batchable_single_value@/parameters/properties/issue_number',
      'no_usage_example@/description',
    ],
  },
  {
    source: 'modelcontextprotocol/servers src/fetch (Fetch model: url AnyUrl, max_length 0 < n < 1000000, start_index >= 0, raw)',
    tool: {
      name: 'fetch',
      description:
        'Fetches a URL from the internet and optionally extracts its contents as markdown. Fetch one URL per call, ' +
        'for example {"url": "https://example.com"}.',
      parameters: {
        type: 'object',
        properties: {
          url: { type: 'string', format: 'uri', description: 'URL to fetch' },
          max_length: {
            type: 'integer',
            exclusiveMinimum: 0,
            exclusiveMaximum: 1000000,
            default: 5000,
            description: 'Maximum number of characters to return.',
          },
          start_index: { type: 'integer', minimum: 0, default: 0, description: 'Start content from this character index.' },
          raw: { type: 'boolean', default: false, description: 'Get the actual HTML content, without simplification.' },
        },
        required: ['url'],
      },
    },
    findings: [],
  },
  {
    source: 'two tools of one project, as agents see them side by side (names of the same words in another order)',
    tool: { name: 'search_web', description: 'Search the web for pages about a topic, for example "rust borrow checker".', parameters: {} },
    siblings: [{ name: 'web_search', description: 'Look things up online and return the top results.', parameters: {} }],
    findings: ['near_duplicate_tool@/name'],
  },
];

const label = (finding: QualityFinding) => `${finding.kind}@${finding.path}`;

describe('judgeTool on real tool definitions', () => {
  it.each(CASES.map((c) => [c.tool.name, c] as const))('%s', (_, c) => {
    const quality = judgeTool(c.tool, c.siblings ?? []);
    expect(quality.findings.map(label).sort()).toEqual([...c.findings].sort());
    const additions = quality.findings.flatMap((finding) => (finding.addition ? [finding.addition] : []));
    for (const addition of c.additions ?? []) expect(additions).toContain(addition);
    const cost = quality.findings.reduce((sum, finding) => sum + SEVERITY_WEIGHT[finding.severity], 0);
    expect(quality.score).toBe(Math.max(0, 100 - cost));
    for (const finding of quality.findings) {
      expect(finding.message.length).toBeGreaterThan(10);
      expect(finding.fix.length).toBeGreaterThan(10);
    }
  });

  it('puts the findings with the most expected impact first', () => {
    const { findings } = judgeTool(CASES[0].tool);
    const ranks = findings.map((finding) => ({ high: 0, medium: 1, low: 2 })[finding.severity]);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
    expect(findings[0].kind).toBe('batchable_single_value');
  });

  it('finds a missing or one-word description, and gives a tool with no smell 100', () => {
    expect(judgeTool({ name: 'x', description: '', parameters: {} }).findings.map(label)).toEqual(['missing_description@/description']);
    expect(judgeTool({ name: 'x', description: 'Search.', parameters: {} }).findings.map(label)).toEqual([
      'missing_description@/description',
    ]);
    expect(judgeTool({ name: 'now', description: 'Returns the current UTC time as ISO 8601.', parameters: {} })).toEqual({
      score: 100,
      findings: [],
    });
  });

  it('reads strings that name ids, emails, URLs, dates and closed sets', () => {
    const { findings } = judgeTool({
      name: 'create_meeting',
      description: 'Creates a meeting, e.g. {"user_id": "u_1"}. Format is one of "video" or "phone".',
      parameters: {
        type: 'object',
        properties: {
          user_id: { type: 'string', description: 'Who hosts it.' },
          email: { type: 'string', description: 'Where the invitation goes.' },
          website: { type: 'string', description: 'A page about it.' },
          start_date: { type: 'string', description: 'The day it starts, YYYY-MM-DD.' },
          format: { type: 'string', description: 'Either "video" or "phone".' },
          agenda: { type: 'array', description: 'Points to discuss.' },
        },
        required: ['user_id', 'email', 'website', 'start_date', 'format', 'agenda'],
      },
    });
    expect(findings.map(label).sort()).toEqual(
      [
        'id_without_pattern@/parameters/properties/user_id',
        'email_without_format@/parameters/properties/email',
        'url_without_format@/parameters/properties/website',
        'date_without_format@/parameters/properties/start_date',
        'closed_set_without_enum@/parameters/properties/format',
        'array_without_items@/parameters/properties/agenda',
        'array_without_max_items@/parameters/properties/agenda',
      ].sort(),
    );
  });

  it('builds its example call from small values inside the bounds, not from the middle of a wide range', () => {
    const exampleOf = (parameters: Record<string, unknown>) =>
      judgeTool({ name: 'factorial', description: 'Compute the factorial of n.', parameters }).findings.find(
        (f) => f.kind === 'no_usage_example',
      )?.addition;
    const integer = (bounds: Record<string, number>) => ({
      type: 'object',
      properties: { n: { type: 'integer', description: 'n', ...bounds } },
    });
    expect(exampleOf(integer({ minimum: 0, maximum: 2 ** 53 }))).toBe('Example call: {"n":12}');
    expect(exampleOf(integer({ minimum: 20, maximum: 30 }))).toBe('Example call: {"n":20}');
    expect(exampleOf(integer({ exclusiveMaximum: 5 }))).toBe('Example call: {"n":4}');
    expect(exampleOf(integer({ minimum: 10, maximum: 1 }))).toBeUndefined();
  });

  it('judges arguments named like Object.prototype members as plain names', () => {
    const quality = judgeTool({
      name: 'proto_names',
      description: 'Takes a constructor and a toString, for example {"constructor": "x"}.',
      parameters: {
        type: 'object',
        properties: { constructor: { type: 'string', description: 'A name.' }, toString: { type: 'string', description: 'A text.' } },
        required: ['constructor', 'toString'],
      },
    });
    expect(quality.findings).toEqual([]);
  });

  it('stays bounded on a huge schema and a huge description', () => {
    const properties = Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`p${i}`, { type: 'integer' }]));
    const quality = judgeTool({ name: 'big', description: 'word '.repeat(100_000), parameters: { type: 'object', properties } });
    expect(quality.findings.filter((f) => f.kind === 'parameter_without_description')).toHaveLength(200);
    expect(quality.score).toBe(0);
  });
});

describe('judgeProjectTools', () => {
  const tool = (name: string, description: string): JudgedTool => ({ name, description, parameters: {} });

  it('judges each tool against the others, worst score first, then by name', () => {
    const reports = judgeProjectTools([
      tool('now', 'Returns the current UTC time as ISO 8601.'),
      tool('web_search', 'Look things up online and return the top results.'),
      tool('search_web', 'Search the web for pages about a topic, for example "rust borrow checker".'),
      tool('x', ''),
    ]);
    expect(reports.map((r) => [r.tool, r.score])).toEqual([
      ['x', 80],
      ['search_web', 90],
      ['web_search', 90],
      ['now', 100],
    ]);
    expect(reports[1].findings[0].addition).toBe("Use this tool, not 'web_search', for what this description says.");
  });

  it('finds names one edit apart and tells apart names of the same letters in another order', () => {
    const reports = judgeProjectTools([
      tool('get_weather', 'Current weather of a city, e.g. {"city": "Oslo"}.'),
      tool('get_weathr', 'Forecast for the next days of a place, e.g. {"city": "Oslo"}.'),
      tool('tag_weather', 'Label a stored observation with a category.'),
    ]);
    const duplicates = Object.fromEntries(reports.map((r) => [r.tool, r.findings.filter((f) => f.kind === 'near_duplicate_tool').length]));
    expect(duplicates).toEqual({ get_weather: 1, get_weathr: 1, tag_weather: 0 });
  });

  it('stays bounded on a project of many tools whose long names are anagrams of each other', () => {
    // the same letters in a fixed pseudo-random order per tool: no pair is close, and only the filter keeps it cheap
    const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789'.repeat(2).slice(0, 64).split('');
    let seed = 1;
    const nextRandom = () => (seed = (seed * 1103515245 + 12345) % 2147483648);
    const anagram = () => {
      const letters = [...alphabet];
      for (let i = letters.length - 1; i > 0; i--) {
        const j = nextRandom() % (i + 1);
        [letters[i], letters[j]] = [letters[j], letters[i]];
      }
      return letters.join('');
    };
    const count = 200;
    const tools = Array.from({ length: count }, (_, i) =>
      tool(anagram(), `Tool number ${i} of a generated project, for example call ${i}.`),
    );
    const started = process.hrtime.bigint();
    const reports = judgeProjectTools(tools);
    const elapsedMs = Number(process.hrtime.bigint() - started) / 1e6;
    expect(reports.filter((r) => r.findings.length > 0)).toEqual([]);
    // 40,000 pairs. Plain node judges 500 such tools in ~0.75 s (500 realistic ones in ~0.06 s); Jest's sandbox runs
    // this code several times slower, so the bound only catches a full edit distance on every pair
    expect(elapsedMs).toBeLessThan(10_000);
  });
});
