// The concurrency item against a fake of Lambda's account settings: what each reservation leaves the rest
// of the account, and "cannot check" when Lambda's settings cannot be read.
import { describe, expect, it } from 'vitest';
import { checkConcurrency, judgeConcurrency } from '../../../../../../cli/commands/doctor/checks/concurrency';
import { accessDenied, fakeContext, RESOURCES } from '../fake-context';

const account = (limit: number, unreserved: number) => ({ limit, unreserved });

describe('judgeConcurrency', () => {
  it('passes a function URL whose reservation leaves at least 100 unreserved', () => {
    expect(
      judgeConcurrency({ frontDoor: 'function-url', reserved: 20, account: account(1000, 980) }),
    ).toMatchObject({
      status: 'pass',
      detail: 'the verify Lambda reserves 20; 980 of 1000 stay unreserved',
    });
  });

  it('fails when fewer than 100 are left unreserved, with the quota as the fix', () => {
    const result = judgeConcurrency({ frontDoor: 'function-url', reserved: 20, account: account(110, 90) });
    expect(result.status).toBe('fail');
    expect(result.fix).toContain('Service Quotas');
  });

  it('fails a function URL whose verify Lambda reserves nothing: it has no rate cap', () => {
    const result = judgeConcurrency({
      frontDoor: 'function-url',
      reserved: undefined,
      account: account(1000, 1000),
    });
    expect(result.status).toBe('fail');
    expect(result.detail).toContain('no rate cap; 900 could be reserved');
    expect(result.fix).toContain('cdk deploy');
  });

  it('asks for a higher quota when a function URL has no reservation and no room for one', () => {
    const result = judgeConcurrency({
      frontDoor: 'function-url',
      reserved: undefined,
      account: account(10, 10),
    });
    expect(result.fix).toContain('Service Quotas');
  });

  it("keeps the account's own floor: with a quota under 100, Lambda keeps the whole quota unreserved", () => {
    // Lambda refuses a reservation that leaves fewer than min(100, quota) unreserved: its error names
    // "[10]" in an account whose quota is 10, "[50]" where it is 50.
    const result = judgeConcurrency({
      frontDoor: 'function-url',
      reserved: undefined,
      account: account(50, 50),
    });
    expect(result.detail).toContain('0 could be reserved');
    expect(result.detail).toContain('keeps at least 50 unreserved');
    expect(result.fix).toContain('Service Quotas');
  });

  it('fails a reservation of 0: every request is throttled', () => {
    expect(judgeConcurrency({ frontDoor: 'rest', reserved: 0, account: account(1000, 1000) }).status).toBe(
      'fail',
    );
  });

  it('passes an API Gateway front door whose verify Lambda reserves nothing', () => {
    expect(
      judgeConcurrency({ frontDoor: 'rest', reserved: undefined, account: account(1000, 1000) }).status,
    ).toBe('pass');
  });
});

describe('checkConcurrency', () => {
  it("reads the verify Lambda's reservation by the name in the stack's resources", async () => {
    const asked: string[] = [];
    const ctx = fakeContext({
      lambda: {
        concurrency: async () => account(1000, 980),
        reservedConcurrency: async (name) => {
          asked.push(name);
          return 20;
        },
      },
    });
    expect((await checkConcurrency(ctx))[0]?.status).toBe('pass');
    expect(asked).toEqual(['WebhookInbox-Verify']);
  });

  it('cannot check when GetAccountSettings is denied, naming the permission', async () => {
    const ctx = fakeContext({
      lambda: { concurrency: () => Promise.reject(accessDenied()), reservedConcurrency: async () => 20 },
    });
    const [result] = await checkConcurrency(ctx);
    expect(result).toMatchObject({ status: 'cannot-check' });
    expect(result?.detail).toContain('lambda:GetAccountSettings');
  });

  it("cannot check when the stack's resources name no verify Lambda", async () => {
    const ctx = fakeContext({
      resources: async () => RESOURCES.filter((r) => r.type !== 'AWS::Lambda::Function'),
    });
    expect((await checkConcurrency(ctx))[0]?.status).toBe('cannot-check');
  });
});
