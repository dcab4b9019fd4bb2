import { diagnose } from './categorizer';
import { ownValue } from './own-value';

describe('ownValue', () => {
  it('reads own properties only', () => {
    const table: Readonly<Record<string, string>> = { required: 'missing_argument' };
    expect(ownValue(table, 'required')).toBe('missing_argument');
    for (const inherited of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) expect(ownValue(table, inherited)).toBeUndefined();
  });
});

describe('error codes named like Object.prototype members', () => {
  it.each(['constructor', '__proto__', 'toString'])('never take %s from Object.prototype as a subtype', (name) => {
    const pydantic = `1 validation error for calc\nn\n  Input should be a valid integer [type=${name}, input_value='x', input_type=str]`;
    const zod = JSON.stringify([{ code: name, path: ['n'], message: 'bad' }]);
    for (const error of [{ message: pydantic }, { type: 'ZodError', message: zod }]) {
      const diagnosis = diagnose({ tool: 'calc', arguments: { n: 'x' }, error });
      expect(diagnosis.category).toBe('argument_mismatch');
      expect(diagnosis.subtype === null || typeof diagnosis.subtype === 'string').toBe(true);
    }
  });
});
