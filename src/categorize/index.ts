// What other features may take from the worker: the shape of the rows it writes that they read back. Its services and
// repository stay its own.
export type { ErrorGroupRow } from './batch-aggregates';
