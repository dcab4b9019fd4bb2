import { RouteMethods } from './route-methods';

describe('RouteMethods', () => {
  const methods = new RouteMethods();
  for (const [pattern, method] of [
    ['/v1/events', 'POST'],
    ['/v1/events', 'GET'],
    ['/v1/events/:id', 'GET'],
    ['/v1/tools::bulk', 'POST'],
    ['/v1/tools/:name', 'PUT'],
    ['/v1/tools/:name', 'DELETE'],
    ['/docs/*', 'GET'],
  ]) {
    methods.add(pattern, method);
  }

  it.each([
    ['/v1/events', ['GET', 'POST']],
    ['/v1/events?limit=1', ['GET', 'POST']],
    ['/v1/events/abc', ['GET']],
    ['/v1/tools:bulk', ['POST']],
    ['/v1/tools/calc', ['DELETE', 'PUT']],
    ['/docs/static/index.css', ['GET']],
  ])('knows which methods %s takes', (url, expected) => {
    expect(methods.allowedOn(url)).toEqual(expected);
  });

  it.each(['/v1/nothing', '/v1/events/abc/def', '/v1/tools/', '/v1'])('knows no method for the unknown path %s', (url) => {
    expect(methods.allowedOn(url)).toEqual([]);
  });
});
