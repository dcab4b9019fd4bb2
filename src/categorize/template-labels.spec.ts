import { computeFingerprint } from '../diagnosis';
import { errorGroupIdFor } from './error-group-id';
import { LABEL_EVIDENCE, labelledDiagnosis } from './template-labels';
import { EventDiagnosis, StoredEventRow } from './stored-event';
import { unknownTemplateIdFor, unknownTemplateOf } from './unknown-template-id';

const PROJECT = '11111111-1111-4111-8111-111111111111';

describe('labelledDiagnosis', () => {
  const diagnosis: EventDiagnosis = {
    category: 'unknown',
    subtype: null,
    argumentPath: null,
    evidence: 'none',
    wrongArgument: null,
    intendedArgument: null,
    offendingValue: null,
    arrayForScalar: false,
    messageTemplate: 'quota spent for account <int>',
    fingerprint: 'f'.repeat(40),
    errorGroupId: 'g',
  };
  const row = { tool: 'ship_order', diagnosis } as StoredEventRow & { diagnosis: EventDiagnosis };

  it("gives the label's category and subtype, evidence label, and the error group they make", () => {
    const labelled = labelledDiagnosis(PROJECT, row, { category: 'out_of_range', subtype: 'above_maximum' });
    const fingerprint = computeFingerprint({
      tool: 'ship_order',
      category: 'out_of_range',
      subtype: 'above_maximum',
      argumentPath: null,
      messageTemplate: diagnosis.messageTemplate,
    });
    expect(labelled).toEqual({
      ...diagnosis,
      category: 'out_of_range',
      subtype: 'above_maximum',
      evidence: LABEL_EVIDENCE,
      fingerprint,
      errorGroupId: errorGroupIdFor(PROJECT, fingerprint),
    });
  });
});

describe('unknownTemplateIdFor', () => {
  it('is one id for one template of one project, another for another project or template', () => {
    const template = unknownTemplateOf('quota spent for account 8812');
    expect(unknownTemplateIdFor(PROJECT, template)).toBe(unknownTemplateIdFor(PROJECT, unknownTemplateOf('quota spent for account 7')));
    expect(unknownTemplateIdFor(PROJECT, template)).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(unknownTemplateIdFor('22222222-2222-4222-8222-222222222222', template)).not.toBe(unknownTemplateIdFor(PROJECT, template));
    expect(unknownTemplateIdFor(PROJECT, unknownTemplateOf('widget wobbled'))).not.toBe(unknownTemplateIdFor(PROJECT, template));
  });
});
