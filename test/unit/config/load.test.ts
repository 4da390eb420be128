// A cdk.json that is not valid JSON is named with the line and column an editor shows, not a character
// offset or a snippet of the text.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loadProjectConfig } from '../../../config/load';

const dirs: string[] = [];
function projectWith(cdkJson: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'webhook-inbox-load-'));
  dirs.push(dir);
  writeFileSync(join(dir, 'cdk.json'), cdkJson);
  return dir;
}

afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('loadProjectConfig: a cdk.json that is not JSON', () => {
  it.each([
    ['a missing value', '{\n  "app": "x",\n  "context": }\n', ':3:14: value expected'],
    ['a trailing comma (the CDK refuses it too)', '{\n  "app": "x",\n}\n', ':3:1: property name expected'],
    ['a comment', '{\n  // mine\n  "app": "x"\n}\n', ':2:3: invalid comment token'],
  ])('names the line and column of %s', (_, text, where) => {
    const dir = projectWith(text);
    expect(() => loadProjectConfig(dir)).toThrow(`${join(dir, 'cdk.json')}${where} (not valid JSON)`);
  });
});
