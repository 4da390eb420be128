// `destinations show --json` is read by setup scripts, and sometimes pasted into a chat: a URL's userinfo
// and query (a password, a token) are masked there as in the table, unless the operator asks --reveal.
import { describe, expect, it } from 'vitest';
import { showJson } from '../../../../cli/commands/destinations';
import type { ResolvedDestination } from '../../../../config';

const destination = {
  id: 'forward-to-1',
  type: 'http',
  url: 'http://user:hunter2@127.0.0.1:45999/hook?key=s3cret',
} as unknown as ResolvedDestination;

describe('destinations show --json', () => {
  it('masks the URL userinfo and query, and the secret, without --reveal', () => {
    const shown = JSON.stringify(showJson('forward-to-1', destination, 'enabled', 'whsec_abcdefgh', false));
    expect(shown).not.toContain('hunter2');
    expect(shown).not.toContain('s3cret');
    expect(shown).not.toContain('whsec_abcdefgh');
    expect(showJson('forward-to-1', destination, 'enabled', null, false).url).toBe(
      'http://***@127.0.0.1:45999/hook?…',
    );
  });

  it('prints both whole with --reveal', () => {
    expect(showJson('forward-to-1', destination, 'enabled', 'whsec_abcdefgh', true)).toMatchObject({
      url: 'http://user:hunter2@127.0.0.1:45999/hook?key=s3cret',
      secret: 'whsec_abcdefgh',
      revealed: true,
    });
  });
});
