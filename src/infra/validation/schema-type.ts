// The TypeScript type of the values a JSON Schema accepts, for our own schemas declared `as const`: one source for a
// payload's validation and its type, so the two cannot drift (json-schema-to-ts's FromSchema, for the keywords we
// use). Keywords that narrow values but not their type (`format`, `pattern`, `minLength`, `minItems`) leave the type
// as it is; properties a schema does not declare are not in the type, whether or not the schema allows them.

interface TypeNames {
  string: string;
  number: number;
  integer: number;
  boolean: boolean;
  null: null;
  array: unknown[];
  object: Record<string, unknown>;
}

type Simplify<T> = { [K in keyof T]: T[K] } & {};

type ObjectOf<S> = S extends { properties: infer P }
  ? Simplify<
      { -readonly [K in keyof P as K extends RequiredOf<S> ? K : never]: FromSchema<P[K]> } & {
        -readonly [K in keyof P as K extends RequiredOf<S> ? never : K]?: FromSchema<P[K]>;
      }
    >
  : Record<string, unknown>;

type RequiredOf<S> = S extends { required: readonly (infer R)[] } ? R : never;

type OfTypeName<S, N> = N extends 'object'
  ? ObjectOf<S>
  : N extends 'array'
    ? S extends { items: infer I }
      ? FromSchema<I>[]
      : unknown[]
    : N extends keyof TypeNames
      ? TypeNames[N]
      : never;

/** The type of what `S` accepts: `type` (one name or several), `enum`, `const`, `properties`/`required`, `items`. */
export type FromSchema<S> = S extends { const: infer C }
  ? C
  : S extends { enum: readonly (infer E)[] }
    ? E
    : S extends { type: readonly (infer N)[] }
      ? OfTypeName<S, N>
      : S extends { type: infer N }
        ? OfTypeName<S, N>
        : unknown;
