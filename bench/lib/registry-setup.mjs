// Registers the bench tools (with a few warnings on one of them, so its description has a rendered block) through
// the API, as a user would.
import { TOOLS } from './events.mjs';
import { api } from './harness.mjs';

export async function registerBenchTools(url, headers = {}) {
  const tools = TOOLS.slice(0, 10).map((tool) => ({
    name: tool.name,
    description: `${tool.name.replaceAll('_', ' ')}: looks things up for the agent and returns a JSON result. Use it when the user asks about ${tool.name}.`,
    parameters: tool.parameters,
  }));
  await api(url, '/v1/tools:bulk', { method: 'POST', body: { tools }, headers });
  const warnings = [
    "Do not pass 'numbers'. The parameter is 'number' (one integer); call this tool once per number.",
    "'limit' above 50 fails (out_of_range). Pass at most 50.",
    "Always pass 'query'; it is required.",
  ];
  for (const text of warnings) {
    await api(url, '/v1/tools/search_docs/warnings', { method: 'POST', body: { text, kind: 'manual' }, headers }).catch((error) => {
      if (!String(error.message).includes('409')) throw error; // already there from an earlier run
    });
  }
}
