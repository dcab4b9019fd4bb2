// The Vercel AI SDK entry point (@toolcoach/sdk/ai): `coachTools` wraps an AI SDK `tools` object for generateText,
// streamText and ToolLoopAgent. It needs `ai` 6 (an optional peer dependency): only this module loads it.
import { asSchema } from 'ai';
import type { TelemetryIntegration, Tool, ToolCallRepairFunction, ToolExecutionOptions, ToolSet } from 'ai';
import { AiCallReporter, AiReportOptions } from './ai-call-reporter';
import { LoadToolsOptions, Toolcoach } from './toolcoach';
import { ToolLike } from './tool-definition';

export type { AiReportOptions } from './ai-call-reporter';

export interface CoachToolsOptions extends AiReportOptions {
  /**
   * Check each call's arguments before the tool runs (docs/integrations/ai-sdk.md): in `execute`, calls the learned
   * limits say fail are refused; with `repairToolCall`, arguments that fail the tool's schema are corrected when the
   * correction is safe. The project's policy decides; `mode` overrides it.
   */
  guard?: LoadToolsOptions['guard'];
}

export interface CoachedTools<TOOLS extends ToolSet> {
  /**
   * The same tools (copies; the object given is not changed) with the descriptions the server serves, kept current by
   * the client's refresh, and the guard in front of each `execute`.
   */
  readonly tools: TOOLS;
  /**
   * Reports every tool call of a run once, including those that never reach a tool: pass it in
   * `experimental_telemetry: { integrations: [...] }` (it needs no `isEnabled`). Without it, only calls that reach a
   * tool are reported, without the model.
   */
  readonly integration: TelemetryIntegration;
  /**
   * For `experimental_repairToolCall`: the guard corrects a call whose arguments fail the tool's schema, or refuses it
   * with a message the model can act on. Answers null (nothing to repair) otherwise, so another repair can follow.
   */
  readonly repairToolCall: ToolCallRepairFunction<TOOLS>;
}

/**
 * Registers the tools with toolcoach and serves them back with the learned descriptions; with `integration` and
 * `repairToolCall`, reports every call and guards it. One conversation of many: pass `toolcoach.forSession(id)`.
 * Never throws: without the server, the tools keep their own descriptions (or the last ones cached on disk).
 */
export async function coachTools<TOOLS extends ToolSet>(
  toolcoach: Toolcoach,
  tools: TOOLS,
  options: CoachToolsOptions = {},
): Promise<CoachedTools<TOOLS>> {
  const reporter = new AiCallReporter(toolcoach, options);
  const coached: Record<string, Tool> = {};
  const registered: ToolLike[] = [];
  for (const [name, original] of Object.entries(tools)) {
    // a provider's own tool (a web search the provider runs) has no description or schema of ours to serve
    if (original.type === 'provider') {
      coached[name] = original;
      continue;
    }
    const copy: Tool = { ...original };
    if (original.execute) copy.execute = guardedExecute(name, original.execute, reporter);
    coached[name] = copy;
    registered.push(await describedBy(name, copy));
  }
  await toolcoach.loadTools(registered, { guard: options.guard });
  return {
    tools: coached as TOOLS,
    integration: reporter.integration(),
    repairToolCall: (repair) => reporter.repair(repair),
  };
}

/**
 * The tool as `loadTools` sees it: its description reads and writes the AI SDK tool's, so the descriptions served at
 * load and every refresh after it reach the model at its next step. Its JSON Schema is the one the AI SDK sends the
 * model, by the AI SDK's own conversion (zod, Standard Schema or `jsonSchema`).
 */
async function describedBy(name: string, tool: Tool): Promise<ToolLike> {
  let parameters: unknown;
  try {
    parameters = await asSchema(tool.inputSchema).jsonSchema;
  } catch {
    // a schema the AI SDK cannot convert fails the agent's own call too; the registry still learns name and description
  }
  return {
    name,
    get description() {
      return tool.description ?? '';
    },
    set description(description: string) {
      tool.description = description;
    },
    parameters,
  };
}

/** `execute` with the guard in front and the call's fallback report behind it (when no integration saw it start). */
function guardedExecute(name: string, execute: NonNullable<Tool['execute']>, reporter: AiCallReporter): NonNullable<Tool['execute']> {
  return (input: unknown, options: ToolExecutionOptions) =>
    reporter.runGuarded(name, input, options.toolCallId, (args) => execute(args, options));
}
