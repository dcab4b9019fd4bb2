// How the OpenAI and Anthropic wrappers sit on a client without changing it: a Proxy that swaps a few `create`
// methods, an APIPromise stand-in that waits for the tools to be loaded before the request leaves, and a stream that
// notes each event as the caller reads it. Relied on: APIPromise's `then`, `withResponse` and `asResponse`, and `Stream`'s
// constructor `(iterator, controller, client)` and `controller` (public); and two internals both SDKs share (Stainless'
// layout): APIPromise's `_thenUnwrap`, which their `parse` helpers call, and the `_client` every resource keeps, through
// which helpers such as `messages.stream()`, `chat.completions.stream()` and `runTools()` reach the wrapped `create`.
// sdk/test/provider-clients.spec.ts runs each of them against the installed SDKs.

/** The part of the SDKs' APIPromise (a Promise of the parsed body) that callers and the SDKs' own helpers use. */
export interface ApiPromiseLike<T> extends Promise<T> {
  withResponse(): Promise<{ data: T; response: unknown }>;
  asResponse(): Promise<unknown>;
  _thenUnwrap<U>(transform: (data: T, props: unknown) => U): ApiPromiseLike<U>;
}

type RequestBody = Record<string, unknown>;
type Create = (body: RequestBody, options?: unknown) => ApiPromiseLike<unknown>;

/** A request made ready to leave, and what to do with its parsed answer (a body, or a stream the caller will read). */
export interface PreparedRequest {
  body: RequestBody;
  onData: (data: unknown) => unknown;
}

/** What the wrapper does around one `create` method: `client` is the unwrapped client (a stream's third argument). */
export type PrepareRequest = (body: RequestBody, client: object) => Promise<PreparedRequest>;

/**
 * A Proxy of `client` whose methods at `methods`' paths (e.g. `chat.completions.create`) are observed. Everything else
 * is the client's own; the client itself is not changed.
 */
export function wrapClient<C extends object>(client: C, methods: Record<string, PrepareRequest>): C {
  const cache = new Map<string, unknown>();
  const paths = Object.keys(methods);
  const proxyOf = <T extends object>(target: T, path: string): T =>
    new Proxy(target, {
      get(object, property) {
        const value: unknown = Reflect.get(object, property, object);
        if (typeof property !== 'string') return value;
        // a resource's helpers (stream, parse, runTools) reach create through `this._client`
        if (path !== '' && property === '_client') return root;
        const full = path === '' ? property : `${path}.${property}`;
        const prepare = methods[full];
        if (prepare && typeof value === 'function') {
          return remembered(cache, full, () => observedCreate(value as Create, object, prepare, client));
        }
        if (value !== null && typeof value === 'object' && paths.some((method) => method.startsWith(`${full}.`))) {
          return remembered(cache, full, () => proxyOf(value, full));
        }
        // the client's own methods use private fields, which a Proxy as `this` cannot reach
        if (path === '' && typeof value === 'function') return (value as (...args: unknown[]) => unknown).bind(object);
        return value;
      },
    });
  const root = proxyOf(client, '');
  return root;
}

function remembered<T>(cache: Map<string, unknown>, key: string, make: () => T): T {
  if (!cache.has(key)) cache.set(key, make());
  return cache.get(key) as T;
}

function observedCreate(original: Create, resource: object, prepare: PrepareRequest, client: object): Create {
  return (body, options) => {
    const ready = prepare(body, client).then(({ body: sent, onData }) => ({ api: original.call(resource, sent, options), onData }));
    return deferredApiPromise(ready);
  };
}

/**
 * An APIPromise whose request starts once `ready` resolves. Its parsed answer goes through `onData` once, however it is
 * read (awaited, `withResponse()`), since the SDK parses once and answers the same object. Lazy like the SDK's: the
 * body is parsed only when the answer is asked for, because `_thenUnwrap` (the SDKs' `parse` helpers) parses the same
 * response again, and a body can be read once.
 */
function deferredApiPromise<T>(ready: Promise<{ api: ApiPromiseLike<T>; onData: (data: T) => T }>): ApiPromiseLike<T> {
  const observed = new WeakMap<object, T>();
  const observeOnce = (data: T, onData: (data: T) => T): T => {
    if (data === null || typeof data !== 'object') return onData(data);
    if (!observed.has(data)) observed.set(data, onData(data));
    return observed.get(data) as T;
  };
  let parsed: Promise<T> | undefined;
  const answer = () => (parsed ??= ready.then(({ api, onData }) => api.then((data) => observeOnce(data, onData))));
  const deferred = {
    then: <A = T, B = never>(
      onFulfilled?: ((value: T) => A | PromiseLike<A>) | null,
      onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null,
    ) => answer().then(onFulfilled, onRejected),
    catch: <B = never>(onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null) => answer().catch(onRejected),
    finally: (onFinally?: (() => void) | null) => answer().finally(onFinally),
    [Symbol.toStringTag]: 'Promise',
    withResponse: () =>
      ready.then(({ api, onData }) => api.withResponse().then((answered) => ({ ...answered, data: observeOnce(answered.data, onData) }))),
    asResponse: () => ready.then(({ api }) => api.asResponse()),
    _thenUnwrap: <U>(transform: (data: T, props: unknown) => U): ApiPromiseLike<U> =>
      deferredApiPromise(
        ready.then(({ api, onData }) => ({
          api: api._thenUnwrap((data, props) => transform(observeOnce(data, onData), props)),
          onData: (data: U) => data,
        })),
      ),
  };
  return deferred as unknown as ApiPromiseLike<T>;
}

/** What a stream observer does with each event the caller reads, and at the stream's end (not when it is abandoned). */
export interface StreamObserver {
  onEvent(event: unknown): void;
  onEnd(): void;
}

interface StreamLike extends AsyncIterable<unknown> {
  controller: unknown;
}

/**
 * The same kind of stream (the SDK's `Stream`, so `tee()`, `toReadableStream()` and `controller` work as before) that
 * hands each event to `observer` as the caller reads it. Anything else is given back as it is.
 */
export function observeStream(stream: unknown, client: object, observer: StreamObserver): unknown {
  if (!isStreamLike(stream)) return stream;
  const Stream = stream.constructor as new (iterator: () => AsyncIterator<unknown>, controller: unknown, client: object) => unknown;
  async function* iterate(): AsyncGenerator<unknown> {
    for await (const event of stream as StreamLike) {
      observe(() => observer.onEvent(event));
      yield event;
    }
    observe(() => observer.onEnd());
  }
  return new Stream(() => iterate(), stream.controller, client);
}

function observe(step: () => void): void {
  try {
    step();
  } catch {
    // An odd event never breaks the caller's stream: reporting is best effort.
  }
}

function isStreamLike(value: unknown): value is StreamLike {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as Partial<StreamLike>)[Symbol.asyncIterator] === 'function' &&
    'controller' in value &&
    typeof value.constructor === 'function'
  );
}
