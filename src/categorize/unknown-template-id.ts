import { MAX_UNKNOWN_TEMPLATE_CHARS, maskUnknownMessage } from '../diagnosis';
import { columnText } from './column-text';
import { errorGroupIdFor } from './error-group-id';

/** The template of an `unknown` failure's message in column form: the key of its group in unknown_templates. */
export function unknownTemplateOf(errorMessage: string | null): string {
  return columnText(maskUnknownMessage(errorMessage ?? ''), MAX_UNKNOWN_TEMPLATE_CHARS);
}

/**
 * A template's id, derived from (project, template) like an error group's, so the worker knows it without reading
 * and the label a person posts for it names the same id. The NUL keeps it apart from every fingerprint.
 */
export function unknownTemplateIdFor(projectId: string, template: string): string {
  return errorGroupIdFor(projectId, `template\u0000${template}`);
}
