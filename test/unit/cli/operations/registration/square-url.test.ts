import { describe, expect, it } from 'vitest';
import { squareUrlRefusal } from '../../../../../cli/operations/registration/square-url';
import type { ResolvedProvider } from '../../../../../config';

const ENDPOINT = 'https://abc.execute-api.eu-west-1.amazonaws.com/webhooks/square';
const square = (notificationUrl?: string) =>
  ({
    id: 'square',
    scheme: 'square',
    ...(notificationUrl ? { options: { notificationUrl } } : {}),
  }) as ResolvedProvider;

describe('squareUrlRefusal', () => {
  it('accepts the configured notificationUrl, and the stack endpoint when none is configured', () => {
    expect(
      squareUrlRefusal(square('https://hooks.example.com/sq'), 'https://hooks.example.com/sq', ENDPOINT),
    ).toBeUndefined();
    expect(squareUrlRefusal(square(), ENDPOINT, ENDPOINT)).toBeUndefined();
  });

  it('refuses a URL the inbox would not verify against, naming the key and the value to set', () => {
    const refusal = squareUrlRefusal(
      square('https://old.example.com/sq'),
      'https://tunnel.example.com/webhooks/square',
      ENDPOINT,
    );
    expect(refusal).toContain(
      'providers.square.options.notificationUrl to "https://tunnel.example.com/webhooks/square"',
    );
    expect(refusal).toContain('"https://old.example.com/sq"');
    expect(squareUrlRefusal(square(), 'https://tunnel.example.com/webhooks/square', ENDPOINT)).toMatch(
      /it is unset/,
    );
  });

  it('says nothing for other schemes', () => {
    expect(
      squareUrlRefusal(
        { id: 'github', scheme: 'github' } as ResolvedProvider,
        'https://x.example.com',
        ENDPOINT,
      ),
    ).toBeUndefined();
  });
});
