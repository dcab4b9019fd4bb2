// What `loadTools` loads for a framework whose tool keeps its description somewhere other than a `description` next to
// a `name` (Mastra: the key of the agent's tools record; LlamaIndex: `tool.metadata`). Shared by those integrations.
import { ToolLike } from './tool-definition';

/** Where a framework tool's description is read and written. */
export interface DescriptionSlot {
  get(): string;
  set(description: string): void;
}

const views = new WeakMap<object, Map<string, ToolLike>>();

/**
 * A ToolLike whose `description` reads and writes the framework tool's own, so loading and every later refresh change
 * the tool in place. One view per tool object and name, always the same: `loadTools` remembers each tool's given
 * description by the object it loaded, so loading the same tools again registers that description, not the served one.
 */
export function toolView(tool: object, name: string, slot: DescriptionSlot, schema: unknown): ToolLike {
  let byName = views.get(tool);
  if (!byName) views.set(tool, (byName = new Map()));
  let view = byName.get(name);
  if (!view) {
    view = {
      name,
      get description() {
        return slot.get();
      },
      set description(description: string) {
        slot.set(description);
      },
      schema,
    };
    byName.set(name, view);
  }
  return view;
}
