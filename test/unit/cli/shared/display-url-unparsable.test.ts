// A destination URL that the config's pattern takes but the URL parser refuses (a port over 65535, a
// character no host may hold) still carries its userinfo and query: printing it whole in the banner or in
// `destinations list` puts the password in the terminal after all.
import { describe, expect, it } from 'vitest';
import { displayUrl } from '../../../../cli/shared/output';

describe('displayUrl of a URL the parser refuses', () => {
  it('prints neither the userinfo password nor the query string', () => {
    for (const url of [
      'http://user:s3cret@127.0.0.1:99999/x?token=abc',
      'https://user:s3cret@hooks.exa%mple.com/in?token=abc',
    ]) {
      const shown = displayUrl(url);
      expect(shown, url).not.toContain('s3cret');
      expect(shown, url).not.toContain('token=abc');
    }
  });
});
