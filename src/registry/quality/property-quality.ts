import type { JudgedProperty } from './judged-properties';
import type { JsonObject } from '../registry.types';
import { isObject } from '../tools/tool-definition';
import type { QualityFinding, QualityFindingKind } from './tool-quality.types';
import { wordsOf } from './word-forms';

// Each argument on its own: a description, bounds a numeric name implies, a format or pattern a string name implies
// (email, URL, id, date), an enum for a closed set, items and maxItems for an array.

// Names (as words) whose numbers have natural bounds the model cannot guess.
const BOUNDED_NUMBER_WORDS = new Set([
  'age',
  'percent',
  'percentage',
  'pct',
  'ratio',
  'limit',
  'page',
  'size',
  'count',
  'n',
  'k',
  'top',
  'num',
  'number',
  'offset',
  'hour',
  'hours',
  'minute',
  'minutes',
  'second',
  'seconds',
  'month',
  'day',
  'year',
  'rating',
  'score',
  'latitude',
  'lat',
  'longitude',
  'lon',
  'lng',
  'quantity',
  'qty',
  'index',
  'temperature',
  'probability',
  'weight',
  'max',
  'min',
  'retries',
  'timeout',
  'depth',
  'level',
  'priority',
  'port',
  'zoom',
  'volume',
]);
const BOUNDED_DESCRIPTION =
  /\b(between|up to|at most|at least|maximum|minimum|max|min|percent(age)?|factorial|fibonacci|range|no more than|less than|greater than|positive|negative)\b/i;

const CLOSED_SET_WORDS = new Set([
  'unit',
  'units',
  'status',
  'type',
  'mode',
  'format',
  'order',
  'sort',
  'direction',
  'kind',
  'category',
  'level',
  'method',
  'currency',
  'language',
  'lang',
  'locale',
  'region',
  'country',
  'operation',
  'op',
  'action',
  'gender',
  'priority',
  'severity',
  'environment',
  'env',
  'period',
  'interval',
  'granularity',
]);
// "one of", "either", "'a', 'b' or 'c'", "celsius or fahrenheit"
const CLOSED_SET_DESCRIPTION =
  /\b(one of|either|must be|can be|valid values|allowed values|possible values|options?:)\b|(['"`][^'"`]{1,30}['"`]\s*(,|or|\|)\s*){1,}['"`][^'"`]{1,30}['"`]/i;

const DATE_WORDS = new Set([
  'date',
  'time',
  'datetime',
  'timestamp',
  'day',
  'since',
  'until',
  'from',
  'to',
  'start',
  'end',
  'deadline',
  'birthday',
  'dob',
]);
const DATE_DESCRIPTION = /\b(date|yyyy|iso[ -]?8601|timestamp|rfc ?3339|datetime)\b/i;

export function judgeProperty(property: JudgedProperty, toolWords: readonly string[]): QualityFinding[] {
  const findings: QualityFinding[] = [];
  const { name, path, schema, type, tokens } = property;
  const said = `${property.description} ${isObject(schema.items) && typeof schema.items.description === 'string' ? schema.items.description : ''}`;
  if (wordsOf(property.description).length === 0) {
    findings.push({
      kind: 'parameter_without_description',
      path,
      severity: 'medium',
      message: `'${name}' has no description.`,
      fix: `Describe '${name}': what it is, its unit or format, and an example value.`,
    });
  }
  if ((type === 'number' || type === 'integer') && !hasBounds(schema)) {
    const impliesBounds = tokens.some((token) => BOUNDED_NUMBER_WORDS.has(token)) || BOUNDED_DESCRIPTION.test(said);
    if (impliesBounds) {
      findings.push({
        kind: 'unbounded_number',
        path,
        severity: 'medium',
        message: `'${name}' is a${type === 'integer' ? 'n integer' : ' number'} with no minimum or maximum, though its name or description implies limits.`,
        fix: `Declare "minimum" and "maximum" on '${name}' (the values the tool really accepts) and say them in its description.`,
      });
    }
  }
  if (type === 'string' && !hasStringConstraint(schema)) findings.push(...judgeString(property, said, toolWords));
  if (type === 'array') {
    if (!isObject(schema.items) && !Array.isArray(schema.prefixItems)) {
      findings.push({
        kind: 'array_without_items',
        path,
        severity: 'medium',
        message: `'${name}' is an array with no "items": the model must guess what goes in it.`,
        fix: `Declare "items" on '${name}' with the element's type.`,
      });
    }
    if (typeof schema.maxItems !== 'number') {
      findings.push({
        kind: 'array_without_max_items',
        path,
        severity: 'low',
        message: `'${name}' is an array with no "maxItems".`,
        fix: `Declare "maxItems" on '${name}' with the most elements the tool handles in one call.`,
      });
    }
  }
  return findings;
}

function judgeString(property: JudgedProperty, said: string, toolWords: readonly string[]): QualityFinding[] {
  const { name, path, tokens } = property;
  const last = tokens[tokens.length - 1] ?? '';
  if (last === 'email' || tokens.includes('email')) {
    return [stringFinding('email_without_format', property, 'an email address', '"format": "email"')];
  }
  if (['url', 'uri', 'link', 'website', 'endpoint', 'href'].includes(last)) {
    return [stringFinding('url_without_format', property, 'a URL', '"format": "uri"')];
  }
  if (last === 'id' || last === 'uuid' || last === 'ids' || /Id$/.test(name)) {
    return [stringFinding('id_without_pattern', property, 'an identifier', 'a "pattern" (or "format": "uuid") matching real ids')];
  }
  if (
    tokens.some((token) => DATE_WORDS.has(token)) &&
    (DATE_DESCRIPTION.test(said) || ['date', 'time', 'datetime', 'timestamp'].includes(last))
  ) {
    return [stringFinding('date_without_format', property, 'a date or time', '"format": "date" or "date-time" (ISO 8601)')];
  }
  const hasClosedName = CLOSED_SET_WORDS.has(last);
  if (CLOSED_SET_DESCRIPTION.test(said) || (hasClosedName && toolWords.length > 0)) {
    return [
      {
        kind: 'closed_set_without_enum',
        path,
        severity: CLOSED_SET_DESCRIPTION.test(said) ? 'medium' : 'low',
        message: `'${name}' looks like a choice from a closed set but declares no "enum".`,
        fix: `Declare the accepted values of '${name}' as "enum" so the model cannot invent one.`,
      },
    ];
  }
  return [];
}

function stringFinding(kind: QualityFindingKind, property: JudgedProperty, what: string, constraint: string): QualityFinding {
  return {
    kind,
    path: property.path,
    severity: 'low',
    message: `'${property.name}' takes ${what} but declares no format or pattern.`,
    fix: `Declare ${constraint} on '${property.name}'.`,
  };
}

function hasBounds(schema: JsonObject): boolean {
  return ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'enum', 'const'].some((key) => key in schema);
}

function hasStringConstraint(schema: JsonObject): boolean {
  return ['enum', 'const', 'format', 'pattern'].some((key) => key in schema);
}
