import { extractFeatures, type FeatureInput } from './features';

// A linear model over the features of features.ts: one score per label ("category/subtype", "-" for none) summed from
// the weights of the features present, turned into a confidence by a softmax over the scores divided by a temperature
// that training fits on predictions for families the model did not see (training.ts).

export interface FallbackWeights {
  /** The format of this file; a new format is a new file name (weights.v2.json). */
  format: 1;
  labels: string[];
  temperature: number;
  bias: number[];
  /** Feature -> [label index, weight] pairs; a feature absent here weighs nothing for every label. */
  weights: Record<string, Array<[number, number]>>;
}

export interface FallbackProposal {
  label: string;
  confidence: number;
}

export interface FallbackModel {
  propose(input: FeatureInput): FallbackProposal;
}

export function loadFallbackModel(weights: FallbackWeights): FallbackModel {
  // A Map, not the parsed object: a feature is text from a message and must never reach Object.prototype.
  const byFeature = new Map<string, ReadonlyArray<readonly [number, number]>>(Object.entries(weights.weights));
  const { labels, bias, temperature } = weights;
  return {
    propose(input: FeatureInput): FallbackProposal {
      const scores = bias.slice();
      for (const feature of extractFeatures(input)) {
        const entries = byFeature.get(feature);
        if (entries) for (const [label, weight] of entries) scores[label] += weight;
      }
      const probabilities = softmax(scores, temperature);
      let best = 0;
      for (let label = 1; label < labels.length; label++) if (probabilities[label] > probabilities[best]) best = label;
      return { label: labels[best], confidence: probabilities[best] };
    },
  };
}

export function softmax(scores: readonly number[], temperature: number): number[] {
  const max = Math.max(...scores);
  const exps = scores.map((score) => Math.exp((score - max) / temperature));
  const total = exps.reduce((sum, value) => sum + value, 0);
  return exps.map((value) => value / total);
}
