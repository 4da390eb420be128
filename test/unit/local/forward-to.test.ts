// `dev --forward-to`: each URL becomes an http destination of the config, through the one schema, and
// never takes the place of a destination cdk.json already has.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../../config';
import { FORWARD_TO_RETRY_SCHEDULE, withForwardTo } from '../../../local/forward-to';

describe('withForwardTo', () => {
  it('adds forward-to-1, forward-to-2 beside the handlers, with the faster schedule', () => {
    const config = withForwardTo(parseConfig({}), ['http://localhost:4000/a', 'http://localhost:4001/b']);
    expect(Object.keys(config.destinations)).toEqual(['handlers', 'forward-to-1', 'forward-to-2']);
    expect(config.destinations['forward-to-2']).toMatchObject({
      type: 'http',
      url: 'http://localhost:4001/b',
      retrySchedule: [2, 10, 30, 120, 600],
    });
    expect(FORWARD_TO_RETRY_SCHEDULE).toHaveLength(5);
  });

  it('refuses a URL that is not http(s), naming it', () => {
    expect(() => withForwardTo(parseConfig({}), ['ftp://x'])).toThrow(
      '--forward-to ftp://x: not an http(s) URL',
    );
  });

  it('refuses to replace a configured destination of the same name', () => {
    const config = parseConfig({
      destinations: { 'forward-to-1': { type: 'http', url: 'http://localhost:4555/hook' } },
    });
    expect(() => withForwardTo(config, ['http://localhost:4555/fwd'])).toThrow(
      '--forward-to http://localhost:4555/fwd: cdk.json already has a destination named forward-to-1',
    );
  });

  it('says when it is --forward-to that takes the config over a limit', () => {
    const destinations = Object.fromEntries(
      Array.from({ length: 10 }, (_, i) => [`d${i}`, { type: 'http', url: `https://h${i}.example.com/` }]),
    );
    expect(() => withForwardTo(parseConfig({ destinations }), ['http://localhost:4000/'])).toThrow(
      /^with --forward-to: .*at most 10 destinations/,
    );
  });
});
