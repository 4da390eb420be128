// The archive in the template (docs/archive-and-replay.md): the payload bucket's lifecycle per prefix, with
// the documented defaults pinned as literals (a wrong default must fail here, not only a wiring mistake),
// and the grants: the processor writes the archive, verify cannot touch it.
import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { CONTEXT_KEY } from '../../config/index';
import { SERVICE } from '../../config/telemetry';
import {
  actionsOf,
  allStatements,
  cdkJsonContext,
  functionIdOf,
  resourcesOf,
  type Statement,
  synthStack,
} from './synth';

interface Rule {
  Id: string;
  Prefix?: string;
  ExpirationInDays?: number;
  Status: string;
}

function payloadBucketRules(template: Template): Rule[] {
  const buckets = Object.values(resourcesOf(template, 'AWS::S3::Bucket'))
    .map((bucket) => bucket.Properties ?? {})
    .filter((properties) => properties.LoggingConfiguration !== undefined);
  expect(buckets).toHaveLength(1);
  return (buckets[0]?.LifecycleConfiguration as { Rules: Rule[] } | undefined)?.Rules ?? [];
}

function rulesFor(archive: Record<string, unknown> | undefined): Rule[] {
  const shipped = cdkJsonContext()[CONTEXT_KEY] as Record<string, unknown>;
  const input = archive === undefined ? shipped : { ...shipped, archive };
  return payloadBucketRules(synthStack({ context: { [CONTEXT_KEY]: input } }).template);
}

function expiry(rules: Rule[], prefix: string): number | undefined {
  return rules.find((rule) => rule.Prefix === prefix && rule.Status === 'Enabled')?.ExpirationInDays;
}

describe('the payload bucket lifecycle', () => {
  it('keeps archived objects 30 days by default, and large bodies as long (the archive reuses them)', () => {
    const rules = rulesFor(undefined);
    expect(expiry(rules, 'archive/')).toBe(30);
    expect(expiry(rules, 'payloads/')).toBe(30);
    // Every rule is scoped: nothing outside the two prefixes is written, and no two rules overlap.
    expect(rules.map((rule) => rule.Prefix).sort()).toEqual(['archive/', 'payloads/']);
  });

  it('follows archive.retentionDays, and with the archive off keeps large bodies 29 days and clears leftovers in 1', () => {
    const long = rulesFor({ retentionDays: 90 });
    expect([expiry(long, 'payloads/'), expiry(long, 'archive/')]).toEqual([90, 90]);
    const off = rulesFor({ retentionDays: 0 });
    expect([expiry(off, 'payloads/'), expiry(off, 'archive/')]).toEqual([29, 1]);
  });
});

describe('the archive grants', () => {
  let template: Template;
  beforeAll(() => {
    template = synthStack().template;
  });

  /** The S3 statements of one Lambda's role, with their object ARN's suffix (`payloads/*`, `archive/*`). */
  function s3Grants(service: string): { actions: string[]; objects: string }[] {
    const functionId = functionIdOf(template, service);
    const role = (
      resourcesOf(template, 'AWS::Lambda::Function')[functionId]?.Properties?.Role as
        | { 'Fn::GetAtt': [string] }
        | undefined
    )?.['Fn::GetAtt'][0];
    const policies = resourcesOf(template, 'AWS::IAM::Policy');
    return allStatements(template)
      .filter(({ logicalId }) =>
        JSON.stringify(policies[logicalId]?.Properties?.Roles ?? []).includes(`"${role}"`),
      )
      .map(({ statement }) => statement as Statement)
      .filter((statement) => actionsOf(statement).some((action) => action.startsWith('s3:')))
      .map((statement) => ({
        actions: actionsOf(statement).sort(),
        objects: JSON.stringify(statement.Resource).match(/\/([a-z]+\/\*|\*)"/)?.[1] ?? 'bucket',
      }));
  }

  it('lets the processor write archive objects, and read none of them', () => {
    expect(s3Grants(SERVICE.process)).toContainEqual({ actions: ['s3:PutObject'], objects: 'archive/*' });
    const archive = s3Grants(SERVICE.process).filter((grant) => grant.objects === 'archive/*');
    expect(archive.flatMap((grant) => grant.actions)).toEqual(['s3:PutObject']);
  });

  it('gives verify PutObject on large bodies only: nothing on the archive, nothing bucket-wide', () => {
    expect(s3Grants(SERVICE.verify)).toEqual([{ actions: ['s3:PutObject'], objects: 'payloads/*' }]);
  });
});
