import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig } from '../../../config';
import { decodeLambdaConfig, encodeLambdaConfig } from '../../../config/lambda-config';
import { runtimeFromEnv } from '../../../config/runtime';

const encode = (value: unknown) => gzipSync(JSON.stringify(value)).toString('base64');

describe('the config the Lambdas receive', () => {
  it('decodes to exactly the resolved config, custom providers and options included', () => {
    const config = parseConfig({
      providers: {
        partner: { scheme: 'generic-hmac', options: { signatureHeader: 'X-Sig', encoding: 'base64' } },
        github: { scheme: 'github', maxBodyBytes: 2_000_000 },
      },
      queue: { retrySchedule: ['1m', '2h'] },
    });
    expect(decodeLambdaConfig(encodeLambdaConfig(config))).toEqual(config);
  });

  it('keeps the eleven default providers well under the 4 KB environment limit', () => {
    const config = parseConfig({});
    expect(Object.keys(config.providers)).toHaveLength(11);
    expect(Buffer.byteLength(encodeLambdaConfig(config))).toBeLessThan(1200);
  });

  it('is read by runtimeFromEnv with the resource names', () => {
    const config = parseConfig({});
    const runtime = runtimeFromEnv({
      WEBHOOK_INBOX_CONFIG: encodeLambdaConfig(config),
      INBOX_TABLE_NAME: 't',
      QUEUE_URL: 'q',
      DLQ_URL: 'd',
      PAYLOAD_BUCKET_NAME: 'b',
    });
    expect(runtime.config).toEqual(config);
    expect(runtime).toMatchObject({ tableName: 't', queueUrl: 'q', dlqUrl: 'd', bucketName: 'b' });
  });

  it('refuses at synth time a config that JSON would change', () => {
    const config = parseConfig({});
    expect(() => encodeLambdaConfig({ ...config, secretCacheSeconds: Number.POSITIVE_INFINITY })).toThrow(
      /does not survive its JSON encoding/,
    );
  });

  it.each([
    ['plain JSON (the old, uncompressed form)', '{"providers":{}}', /not a gzip\+base64 JSON config/],
    ['gzip of something that is not JSON', gzipSync('nope').toString('base64'), /not a gzip\+base64/],
    ['another format version', encode({ format: 2, config: { providers: {} } }), /format 2.*redeploy/],
    ['no providers', encode({ format: 1, config: { queue: {} } }), /holds no providers/],
  ])('refuses %s with a ConfigError that names the variable', (_name, value, message) => {
    expect(() => decodeLambdaConfig(value)).toThrow(ConfigError);
    expect(() => decodeLambdaConfig(value)).toThrow(message);
    expect(() => decodeLambdaConfig(value)).toThrow(/WEBHOOK_INBOX_CONFIG/);
  });
});
