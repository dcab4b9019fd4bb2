import type { GuardSection } from '../guard/guard-section';
import type { DescriptionView, JsonObject, ToolFormat } from '../registry.types';

// The shapes agent frameworks take a tool in, each carrying the augmented description. Pure.

export interface ListedTool extends DescriptionView {
  metadata: JsonObject | null;
  /** Served in the raw format only: what an SDK checks a call against (guard-section.ts). */
  guard?: GuardSection;
}

export function toFormat(tool: ListedTool, format: ToolFormat): unknown {
  switch (format) {
    case 'openai':
      return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
    case 'anthropic':
      return { name: tool.name, description: tool.description, input_schema: tool.parameters };
    case 'mcp':
      return { name: tool.name, description: tool.description, inputSchema: tool.parameters };
    case 'langchain':
      return { name: tool.name, description: tool.description, schema: tool.parameters };
    case 'raw':
      return tool;
  }
}
