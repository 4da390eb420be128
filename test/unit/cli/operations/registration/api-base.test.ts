import { describe, expect, it } from 'vitest';
import { cleartextApiBaseRefusal } from '../../../../../cli/operations/registration/api-base';

describe('cleartextApiBaseRefusal', () => {
  it('accepts https anywhere, and plain http to this machine only (a test server)', () => {
    expect(cleartextApiBaseRefusal('https://ghe.example.com/api/v3')).toBeUndefined();
    expect(cleartextApiBaseRefusal('http://127.0.0.1:4010/api/v3')).toBeUndefined();
    expect(cleartextApiBaseRefusal('http://localhost:4010')).toBeUndefined();
    expect(cleartextApiBaseRefusal('http://[::1]:4010/graphql')).toBeUndefined();
  });

  it('refuses plain http to another host: the credential would cross the network in clear text', () => {
    expect(cleartextApiBaseRefusal('http://ghe.example.com/api/v3')).toMatch(/must be https/);
    expect(cleartextApiBaseRefusal('http://10.0.0.5/graphql')).toMatch(/clear text/);
  });
});
