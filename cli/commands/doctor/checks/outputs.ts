// The stack's outputs: everything the CLI finds the inbox's resources by. The other checks need them.
import { type CheckResult, fail, pass } from '../checklist';
import type { DoctorContext } from '../ports';

export const OUTPUTS = 'outputs';
const TITLE = "the stack's outputs are present";

export function checkOutputs(ctx: DoctorContext): CheckResult[] {
  const { outputs, name, missingOutputs } = ctx.stack;
  if (missingOutputs.length > 0 || ctx.target === undefined) {
    return [
      fail(
        OUTPUTS,
        TITLE,
        `stack ${name} lacks ${missingOutputs.join(', ') || 'outputs the CLI needs'}`,
        'deploy this project (`npx cdk deploy`) so the stack has the outputs of this version and this cdk.json',
      ),
    ];
  }
  return [
    pass(OUTPUTS, TITLE, `${Object.keys(outputs).length} outputs of stack ${name} (${ctx.stack.region})`),
  ];
}
