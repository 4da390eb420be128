// Wires `webhook-inbox doctor` to a deployed stack: reads its outputs (a stack that cannot be read is one
// line and exit 1, like every command), builds the ports on real clients, runs the checklist and prints it.
import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import pc from 'picocolors';
import { forwardDestinations } from '../../../config';
import {
  createAwsClients,
  createCloudFormationClient,
  createCloudWatchClient,
  createLambdaClient,
} from '../../../lambdas/adapters/clients';
import { destinationOutputs, readStackOutputs } from '../../../lambdas/adapters/stack-outputs';
import { listStackResources } from '../../../lambdas/adapters/stack-resources';
import { StackNotFoundError } from '../../../lambdas/core/errors';
import { sendTestDelivery } from '../../operations/destination-test-delivery';
import { PROCESSED_ONCE_TIMING } from '../../operations/processed-once';
import { CliError, print } from '../../shared/output';
import { loadProject } from '../../shared/project';
import { REQUIRED_OUTPUTS, stackReadFailure, targetFromOutputs } from '../../shared/stack-target';
import type { Target } from '../../shared/target-types';
import { alarmOps, httpOps, inboxReader, lambdaAccountOps, redriveOps, resourceProbes } from './adapters';
import { summarize } from './checklist';
import type { DoctorCommandOptions } from './command';
import type { DoctorContext, StackResource } from './ports';
import { printJsonReport, printResult, printSummary } from './report';
import { runChecks } from './run-checks';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Rejects every call: the ports of a stack whose outputs are missing (their checks never call them). */
function unavailable<T extends object>(): T {
  return new Proxy({} as T, {
    // Not a thenable: `then` stays undefined, so awaiting the object itself cannot hang.
    get: (_target, key) =>
      key === 'then' ? undefined : () => Promise.reject(new Error("the stack's outputs are missing")),
  });
}

/**
 * A stack that cannot be read, as one line. One that is not in the region says which region was asked:
 * the usual cause is a deployment to another region than the profile's.
 */
async function stackUnreadable(
  client: CloudFormationClient,
  stack: string,
  error: unknown,
): Promise<CliError> {
  if (!(error instanceof StackNotFoundError)) return stackReadFailure(stack, error);
  const region = await client.config.region().catch(() => undefined);
  return new CliError(
    `stack ${stack} does not exist in ${region ?? 'this region'}`,
    'check the stack name, or pass --region where it is deployed and --profile for its account',
  );
}

export async function runDoctor(options: DoctorCommandOptions): Promise<number> {
  const { config } = await loadProject();
  // The default credential chain reads AWS_PROFILE; set it before any client exists.
  if (options.profile) process.env.AWS_PROFILE = options.profile;
  const cloudformation = createCloudFormationClient(options.region ? { region: options.region } : {});
  let target: Target | undefined;
  const closers: (() => void)[] = [() => cloudformation.destroy()];
  try {
    let stack: { region: string; outputs: Record<string, string> };
    try {
      stack = await readStackOutputs(cloudformation, options.stack);
    } catch (error) {
      throw await stackUnreadable(cloudformation, options.stack, error);
    }
    const { region, outputs } = stack;
    const missingOutputs = [
      ...REQUIRED_OUTPUTS.filter((key) => !outputs[key]),
      ...destinationOutputs(outputs, forwardDestinations(config)).missing,
    ];
    if (missingOutputs.length === 0) target = targetFromOutputs(options, config, stack);
    const clients = createAwsClients({ region });
    const cloudwatch = createCloudWatchClient({ region });
    const lambda = createLambdaClient({ region });
    closers.push(
      ...Object.values(clients).map((client) => () => client.destroy()),
      () => cloudwatch.destroy(),
      () => lambda.destroy(),
    );
    let resources: Promise<StackResource[]> | undefined;
    const ctx: DoctorContext = {
      stack: { name: options.stack, region, outputs, missingOutputs },
      config,
      ...(target === undefined ? {} : { target }),
      resources: () => {
        resources ??= listStackResources(cloudformation, options.stack);
        return resources;
      },
      probes: target ? resourceProbes(clients, target) : unavailable(),
      inbox: target ? inboxReader(clients, target) : unavailable(),
      http: await httpOps(),
      alarms: alarmOps(cloudwatch),
      lambda: lambdaAccountOps(lambda),
      redrive: target ? redriveOps(clients, target) : unavailable(),
      testDestination: (destination) =>
        target ? sendTestDelivery(target, destination) : Promise.reject(new Error('no target')),
      clock: { nowMs: () => Date.now(), sleep },
      timing: { processed: PROCESSED_ONCE_TIMING, alarmWaitMs: 60_000, alarmPollMs: 3_000 },
      options: { delivery: options.delivery, alarm: !options.skipAlarm },
    };
    if (!options.json) {
      print(`${pc.bold('doctor')} stack ${options.stack} (${region})`);
      const writes = [
        options.delivery ? 'a test delivery and destination test events' : '',
        options.skipAlarm ? '' : "an alarm's state (its subscribers are notified)",
      ].filter(Boolean);
      print(pc.dim(writes.length > 0 ? `writes: ${writes.join('; ')}` : 'writes nothing'));
      print();
    }
    const results = await runChecks(ctx, options.json ? undefined : printResult);
    if (options.json) printJsonReport(ctx.stack, results);
    else printSummary(results);
    return summarize(results).ok ? 0 : 1;
  } finally {
    target?.close();
    for (const close of closers) close();
  }
}
