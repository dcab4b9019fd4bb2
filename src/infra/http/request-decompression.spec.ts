import { Readable } from 'node:stream';
import { createGzip, gzipSync } from 'node:zlib';
import { ApiError } from './api-error';
import { boundedGunzip, DecodedBody } from './request-decompression';

const LIMIT_BYTES = 1024 * 1024;

/** Reads `body` to its end, or to its error; returns what came out either way. */
async function drain(body: DecodedBody): Promise<{ output: Buffer; error?: unknown }> {
  const chunks: Buffer[] = [];
  try {
    for await (const chunk of body) chunks.push(chunk as Buffer);
    return { output: Buffer.concat(chunks) };
  } catch (error) {
    return { output: Buffer.concat(chunks), error };
  }
}

/** An endless gzip stream of zeros, made lazily: no decoder can ever hold its whole output. */
function endlessZerosGzipped() {
  let zerosMade = 0;
  const zeros = new Readable({
    read() {
      zerosMade += 64 * 1024;
      this.push(Buffer.alloc(64 * 1024));
    },
  });
  const gzipped = zeros.pipe(createGzip());
  return { gzipped, zerosMade: () => zerosMade, stop: () => zeros.destroy() };
}

describe('boundedGunzip', () => {
  it('inflates a gzip body and reports the compressed length it read', async () => {
    const text = JSON.stringify({ resourceSpans: Array.from({ length: 200 }, (_, i) => ({ name: `span ${i}` })) });
    const compressed = gzipSync(text);
    const body = boundedGunzip(Readable.from([compressed.subarray(0, 10), compressed.subarray(10)]), LIMIT_BYTES);
    const { output, error } = await drain(body);
    expect(error).toBeUndefined();
    expect(output.toString('utf8')).toBe(text);
    expect(body.receivedEncodedLength).toBe(compressed.length);
  });

  it('takes a body that inflates to exactly the limit', async () => {
    const { output, error } = await drain(boundedGunzip(Readable.from([gzipSync(Buffer.alloc(LIMIT_BYTES, 7))]), LIMIT_BYTES));
    expect(error).toBeUndefined();
    expect(output.length).toBe(LIMIT_BYTES);
  });

  it('refuses a zip bomb (10 MB of zeros in about 10 KB) with 413 once the output passes the limit', async () => {
    const bomb = gzipSync(Buffer.alloc(10 * LIMIT_BYTES));
    expect(bomb.length).toBeLessThan(20 * 1024);
    const { output, error } = await drain(boundedGunzip(Readable.from([bomb]), LIMIT_BYTES));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 413, code: 'payload_too_large', message: expect.stringMatching(/1 MB limit once decompressed/) });
    expect(output.length).toBeLessThanOrEqual(LIMIT_BYTES);
  });

  it('stops reading an endless gzip stream soon after the limit instead of inflating all of it', async () => {
    const source = endlessZerosGzipped();
    const body = boundedGunzip(source.gzipped, LIMIT_BYTES);
    const { output, error } = await drain(body);
    expect(error).toMatchObject({ status: 413 });
    expect(output.length).toBeLessThanOrEqual(LIMIT_BYTES);
    // gzip shrinks zeros about 1000 times: a few KB of input inflate past the limit
    expect(body.receivedEncodedLength).toBeLessThan(16 * 1024);
    const madeAtError = source.zerosMade();
    await new Promise((resolve) => setImmediate(resolve));
    // nothing keeps pulling the source once the body failed: at most what stream buffers had already asked for
    expect(source.zerosMade() - madeAtError).toBeLessThanOrEqual(LIMIT_BYTES);
    expect(madeAtError).toBeLessThan(16 * LIMIT_BYTES);
    source.stop();
  });

  it.each([
    ['bytes that are not gzip', Buffer.from('{"resourceSpans":[]}'), /Body is not valid gzip: incorrect header check/],
    ['a gzip stream cut short', gzipSync('{"resourceSpans":[]}').subarray(0, 15), /Body is not valid gzip: unexpected end of file/],
  ])('refuses %s with 400 invalid_encoding', async (_name, bytes, message) => {
    const { error } = await drain(boundedGunzip(Readable.from([bytes]), LIMIT_BYTES));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ status: 400, code: 'invalid_encoding', message: expect.stringMatching(message) });
  });
});
