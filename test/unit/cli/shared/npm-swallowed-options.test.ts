// `npm start --forward-to URL` without `--`: npm keeps the flag as its own config and passes the value on as
// a bare argument (checked with npm 11: npm_config_forward_to=true, argv ["URL"]). The inbox says so.
import { describe, expect, it } from 'vitest';
import { npmSwallowedOptions } from '../../../../cli/shared/npm-swallowed-options';

const underNpm = { npm_lifecycle_event: 'start' };

describe('npmSwallowedOptions', () => {
  it('names the option npm took and the command that works, with the value it passed on', () => {
    expect(
      npmSwallowedOptions({ ...underNpm, npm_config_forward_to: 'true' }, ['http://localhost:9000/hooks']),
    ).toBe(
      "npm took --forward-to for itself: put -- before the inbox's options, as in " +
        '`npm start -- --forward-to http://localhost:9000/hooks`',
    );
  });

  it('catches --port and --data-dir the same way', () => {
    expect(npmSwallowedOptions({ ...underNpm, npm_config_port: 'true' }, ['0'])).toContain(
      'npm start -- --port 0',
    );
    expect(npmSwallowedOptions({ ...underNpm, npm_config_data_dir: '.data' }, [])).toContain('--data-dir');
  });

  it('says nothing when the options came after --, or outside npm', () => {
    expect(npmSwallowedOptions(underNpm, [])).toBeUndefined();
    expect(npmSwallowedOptions({ npm_config_port: 'true' }, ['0'])).toBeUndefined();
  });
});
