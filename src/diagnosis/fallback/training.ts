import { familyOf } from './family';
import { extractFeatures, type FeatureInput } from './features';
import { type FallbackWeights, softmax } from './linear-model';

// Trains the fallback model (multinomial logistic regression) on the tuning parts of test/fixtures/categorizer,
// deterministically: fixtures in id order, features and labels in sorted order, a fixed number of epochs of plain
// stochastic gradient descent with a fixed step schedule, no random numbers. Weights are rounded to fixed decimals and
// small ones dropped, so the committed file is small and the same bytes come out of every run
// (scripts/train-diagnosis-model.js writes it; weights.spec.ts checks it).

export const TRAINING = {
  epochs: 6,
  /** Step of epoch e: learningRate / (1 + e). */
  learningRate: 0.5,
  /** A feature seen in fewer training fixtures is not learned (a single fixture's id or tool name is noise). */
  minFeatureCount: 3,
  decimals: 2,
  /** Weights smaller than this (after rounding) are dropped. */
  minWeight: 0.1,
  /** Temperatures tried when calibrating, in steps of 0.25. */
  maxTemperature: 8,
} as const;

export interface TrainingFixture {
  id: string;
  source: string;
  family?: unknown;
  arguments: unknown;
  error: { type?: string | null; message: string };
  schema?: unknown;
  expected: { category: string; subtype: string | null };
}

/** The generated parts the model learns from: every part but the held-out twins (gen/README.md). */
export function isTuningPart(fileName: string): boolean {
  return /^(?:gen-.+|frameworks)\.jsonl$/.test(fileName);
}

export function isHeldOutPart(fileName: string): boolean {
  return fileName.startsWith('heldout-') && isTuningPart(fileName.slice('heldout-'.length));
}

export function parseFixtureLines(text: string): TrainingFixture[] {
  return text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as TrainingFixture);
}

export function labelOf(fixture: Pick<TrainingFixture, 'expected'>): string {
  return `${fixture.expected.category}/${fixture.expected.subtype ?? '-'}`;
}

export function featureInputOf(fixture: TrainingFixture): FeatureInput {
  const hasSchema = typeof fixture.schema === 'object' && fixture.schema !== null;
  return { message: fixture.error?.message, type: fixture.error?.type, arguments: fixture.arguments, hasSchema };
}

interface Example {
  family: string;
  features: readonly string[];
  label: string;
}

export interface TrainedModels {
  /** The model shipped: every fixture learned, the temperature fitted on the held-out families' predictions. */
  weights: FallbackWeights;
  /** Family -> the model trained without that family's fixtures (same temperature), for leave-one-family-out scores. */
  withoutFamily: Map<string, FallbackWeights>;
}

/**
 * Trains one model per family on every other family (leave-one-family-out), fits the temperature on their predictions
 * for the family each did not see, then trains the shipped model on all fixtures.
 */
export function trainFallbackModels(fixtures: readonly TrainingFixture[]): TrainedModels {
  const examples = [...fixtures]
    .sort((a, b) => compareText(a.id, b.id))
    .map((fixture) => ({ family: familyOf(fixture), features: extractFeatures(featureInputOf(fixture)), label: labelOf(fixture) }));
  const families = [...new Set(examples.map((example) => example.family))].sort(compareText);
  const untempered = new Map(families.map((family) => [family, fitWeights(examples.filter((example) => example.family !== family))]));
  const temperature = calibrateTemperature(examples, untempered);
  const withoutFamily = new Map([...untempered].map(([family, weights]) => [family, { ...weights, temperature }]));
  return { weights: { ...fitWeights(examples), temperature }, withoutFamily };
}

/** The weights file's text: one feature per line, in sorted order, so a retrained file diffs line by line. */
export function serializeWeights(weights: FallbackWeights): string {
  const features = Object.keys(weights.weights).sort(compareText);
  const lines = features.map((feature) => `    ${JSON.stringify(feature)}: ${JSON.stringify(weights.weights[feature])}`);
  return [
    '{',
    `  "format": ${weights.format},`,
    `  "labels": ${JSON.stringify(weights.labels)},`,
    `  "temperature": ${weights.temperature},`,
    `  "bias": ${JSON.stringify(weights.bias)},`,
    '  "weights": {',
    lines.join(',\n'),
    '  }',
    '}',
    '',
  ].join('\n');
}

function fitWeights(examples: readonly Pick<Example, 'features' | 'label'>[]): Omit<FallbackWeights, 'temperature'> {
  const labels = [...new Set(examples.map((example) => example.label))].sort(compareText);
  const counts = new Map<string, number>();
  for (const example of examples) for (const feature of example.features) counts.set(feature, (counts.get(feature) ?? 0) + 1);
  const vocabulary = [...counts.entries()]
    .filter(([, count]) => count >= TRAINING.minFeatureCount)
    .map(([feature]) => feature)
    .sort(compareText);
  const indexOf = new Map(vocabulary.map((feature, index) => [feature, index]));
  const labelIndex = new Map(labels.map((label, index) => [label, index]));
  const encoded = examples.map((example) => ({
    features: example.features.flatMap((feature) => (indexOf.has(feature) ? [indexOf.get(feature) as number] : [])),
    label: labelIndex.get(example.label) as number,
  }));

  const labelCount = labels.length;
  const weights = new Float64Array(vocabulary.length * labelCount);
  const bias = new Float64Array(labelCount);
  const scores = new Float64Array(labelCount);
  for (let epoch = 0; epoch < TRAINING.epochs; epoch++) {
    const step = TRAINING.learningRate / (1 + epoch);
    for (const example of encoded) {
      scores.set(bias);
      for (const feature of example.features) {
        const row = feature * labelCount;
        for (let label = 0; label < labelCount; label++) scores[label] += weights[row + label];
      }
      const probabilities = softmax(Array.from(scores), 1);
      for (let label = 0; label < labelCount; label++) {
        const change = step * (probabilities[label] - (label === example.label ? 1 : 0));
        // a label the example already rules out changes nothing worth a weight's rounding
        if (Math.abs(change) < 1e-6) continue;
        bias[label] -= change;
        for (const feature of example.features) weights[feature * labelCount + label] -= change;
      }
    }
  }

  const kept: Record<string, Array<[number, number]>> = {};
  vocabulary.forEach((feature, index) => {
    const entries: Array<[number, number]> = [];
    for (let label = 0; label < labelCount; label++) {
      const weight = roundWeight(weights[index * labelCount + label]);
      if (Math.abs(weight) >= TRAINING.minWeight) entries.push([label, weight]);
    }
    if (entries.length > 0) kept[feature] = entries;
  });
  return { format: 1, labels, bias: [...bias].map(roundWeight), weights: kept };
}

/** The temperature that minimizes the log-loss of each family's predictions by the model trained without it. */
function calibrateTemperature(examples: readonly Example[], withoutFamily: Map<string, Omit<FallbackWeights, 'temperature'>>): number {
  const outOfFamily: Array<{ scores: number[]; label: number }> = [];
  for (const [family, model] of withoutFamily) {
    const byFeature = new Map(Object.entries(model.weights));
    for (const example of examples) {
      const label = model.labels.indexOf(example.label);
      // a label no other family has cannot be learned from them: it says nothing about the temperature
      if (example.family !== family || label < 0) continue;
      const scores = model.bias.slice();
      for (const feature of example.features) for (const [other, weight] of byFeature.get(feature) ?? []) scores[other] += weight;
      outOfFamily.push({ scores, label });
    }
  }
  let best = { temperature: 1, loss: Number.POSITIVE_INFINITY };
  for (let quarter = 1; quarter <= TRAINING.maxTemperature * 4; quarter++) {
    const temperature = quarter / 4;
    const loss = outOfFamily.reduce((sum, { scores, label }) => sum - Math.log(Math.max(1e-12, softmax(scores, temperature)[label])), 0);
    if (loss < best.loss) best = { temperature, loss };
  }
  return best.temperature;
}

function roundWeight(weight: number): number {
  const scale = 10 ** TRAINING.decimals;
  const rounded = Math.round(weight * scale) / scale;
  return rounded === 0 ? 0 : rounded;
}

function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
