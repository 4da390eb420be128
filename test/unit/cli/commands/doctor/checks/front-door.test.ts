// The doctor finds the verify Lambda, the alarms and the front door among ListStackResources' answer by
// type and logical id: pinned here against the stack as `cdk synth` builds it.
import { describe, expect, it } from 'vitest';
import {
  alarmNamesIn,
  frontDoorIn,
  verifyFunctionIn,
} from '../../../../../../cli/commands/doctor/checks/front-door';
import type { StackResource } from '../../../../../../cli/commands/doctor/ports';
import { SERVICE } from '../../../../../../config/telemetry';
import { functionIdOf, type SynthOptions, synthStack } from '../../../../../infra/synth';

/** The template's resources as ListStackResources lists them, each with its logical id as physical id. */
function listed(options: SynthOptions): { resources: StackResource[]; verifyId: string } {
  const { template } = synthStack(options);
  const json = template.toJSON() as { Resources: Record<string, { Type: string }> };
  const resources = Object.entries(json.Resources).map(([logicalId, r]) => ({
    logicalId,
    physicalId: logicalId,
    type: r.Type,
  }));
  return { resources, verifyId: functionIdOf(template, SERVICE.verify) };
}

describe("the stack's resources", () => {
  it('name the verify Lambda, the REST front door and the alarms', () => {
    const { resources, verifyId } = listed({});
    expect(verifyFunctionIn(resources)).toBe(verifyId);
    expect(frontDoorIn(resources)).toBe('rest');
    expect(alarmNamesIn(resources).length).toBeGreaterThan(0);
  });

  it('name a function URL front door', () => {
    const { resources, verifyId } = listed({ inbox: { api: 'function-url', waf: false } });
    expect(frontDoorIn(resources)).toBe('function-url');
    expect(verifyFunctionIn(resources)).toBe(verifyId);
  });
});
