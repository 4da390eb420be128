import { describe, expect, it } from 'vitest';
import { requestFromEvent } from '../../../lambdas/verify/front-door-event';
import { restProxyEvent } from '../../../local/rest-proxy-event';

const request = (path: string) => ({ method: 'POST', path, headers: {}, body: Buffer.from('{}') });

describe('restProxyEvent', () => {
  it('decodes the provider path parameter', () => {
    expect(restProxyEvent(request('/webhooks/git%68ub')).pathParameters).toEqual({ provider: 'github' });
  });

  it.each(['/webhooks/%', '/webhooks/%ZZ', '/webhooks/%E0%A4%A'])(
    'turns the malformed escape in %s into an event that names no provider, instead of throwing',
    (path) => {
      const event = restProxyEvent(request(path));
      expect(event.pathParameters).toBeNull();
      expect(event.path).toBe(path);
      // What the verify handler reads from it: no provider, which it answers 404.
      expect(requestFromEvent(event).providerId).toBeUndefined();
    },
  );
});
