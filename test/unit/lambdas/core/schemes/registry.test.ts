import { describe, expect, it } from 'vitest';
import { SCHEME_NAMES } from '../../../../../config/schema';
import { REJECT_STATUS } from '../../../../../lambdas/core/reasons';
import { SCHEMES } from '../../../../../lambdas/core/schemes';

describe('scheme registry', () => {
  it.each(SCHEME_NAMES)('registers %s under its own name', (name) => {
    expect(SCHEMES[name].name).toBe(name);
  });

  it('registers nothing the config schema does not know', () => {
    expect(Object.keys(SCHEMES).sort()).toEqual([...SCHEME_NAMES].sort());
  });

  it('issues a fresh, usable secret on every call for every scheme', () => {
    for (const scheme of Object.values(SCHEMES)) {
      const [a, b] = [scheme.generateSecret(), scheme.generateSecret()];
      expect(a).not.toBe(b);
      expect(a.trim()).toBe(a);
      expect(a.length).toBeGreaterThanOrEqual(16);
    }
  });

  it('answers the configuration errors the schemes can report with a server error', () => {
    expect(REJECT_STATUS.no_notification_url).toBe(500);
    expect(REJECT_STATUS.bad_scheme_options).toBe(500);
  });
});
