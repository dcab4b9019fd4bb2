// A fixture's family: one validator library, one runtime, one framework, one provider. Leave-one-family-out evaluation
// holds a whole family out, the way a wording from a library never seen arrives.

export interface FamilyFixture {
  family?: unknown;
  source: string;
}

/**
 * The fixture's own `family` when it names one; else read from its `source`: "gen:ajv" -> "ajv",
 * "framework:vercel/ai@ed857f50f1:packages/..." -> "vercel/ai", "provider:thread:groq" -> "groq".
 */
export function familyOf(fixture: FamilyFixture): string {
  if (typeof fixture.family === 'string' && fixture.family.trim() !== '') return fixture.family.trim();
  const source = fixture.source.trim().split(/\s/, 1)[0];
  const [kind, ...rest] = source.split(':');
  if (rest.length === 0) return kind;
  if (kind === 'framework' || kind === 'provider') {
    const place = rest[0] === 'thread' && rest.length > 1 ? rest[1] : rest[0];
    return place.split('@', 1)[0];
  }
  return rest[0];
}
