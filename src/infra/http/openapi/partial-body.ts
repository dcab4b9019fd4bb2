import type { JsonSchema } from './response.schemas';

/**
 * The request body of a partial update of the object `schema` describes (a policy's PUT): the same fields and checks,
 * none required, so a client sends the one field it means to change and every field it leaves out keeps its value.
 */
export function partialBodyOf<S extends JsonSchema & { required: readonly string[] }>(
  schema: S,
): Omit<S, 'required'> & { description: string } {
  const { required: _required, ...fields } = schema;
  return { ...fields, description: 'any of the fields; each one left out keeps its current value, and {} changes nothing' };
}
