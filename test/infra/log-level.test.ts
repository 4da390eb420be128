// logLevel WARN or ERROR: the Lambdas' own logger takes that level, while Lambda's application log-level
// filter stays at INFO, since at WARN it would drop the metrics' EMF lines (they carry no level).
import type { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it } from 'vitest';
import { SERVICE } from '../../config/telemetry';
import { functionIdOf, resourcesOf, synthStack, withDestinations } from './synth';

describe('logLevel and Lambda’s log-level filter', () => {
  it.each(['WARN', 'ERROR'] as const)(
    'at %s every Lambda filters at INFO in Lambda and at the level in POWERTOOLS_LOG_LEVEL',
    (logLevel) => {
      const { template } = synthStack(withDestinations({ inbox: { logLevel } }));
      const functions = resourcesOf(template as Template, 'AWS::Lambda::Function');
      for (const service of [SERVICE.verify, SERVICE.process, SERVICE.forward]) {
        const fn = functions[functionIdOf(template, service)]?.Properties ?? {};
        expect(fn.LoggingConfig).toMatchObject({ LogFormat: 'JSON', ApplicationLogLevel: 'INFO' });
        expect(
          (fn.Environment as { Variables: Record<string, unknown> }).Variables.POWERTOOLS_LOG_LEVEL,
        ).toBe(logLevel);
      }
    },
  );
});
