// Lambda's account settings and a function's reserved concurrency, for `webhook-inbox doctor`: whether the
// account's concurrency leaves room for what the verify Lambda reserves.
import {
  GetAccountSettingsCommand,
  GetFunctionConcurrencyCommand,
  type LambdaClient,
} from '@aws-sdk/client-lambda';
import { callDependency } from './dependency-call';

export interface AccountConcurrency {
  /** The region's concurrency quota for the account. */
  limit: number;
  /** What is left once every function's reserved concurrency is taken out. */
  unreserved: number;
}

export class LambdaAccount {
  constructor(private readonly client: LambdaClient) {}

  async concurrency(): Promise<AccountConcurrency> {
    const { AccountLimit: limit } = await callDependency('lambda', 'GetAccountSettings', () =>
      this.client.send(new GetAccountSettingsCommand({})),
    );
    return {
      limit: limit?.ConcurrentExecutions ?? 0,
      unreserved: limit?.UnreservedConcurrentExecutions ?? 0,
    };
  }

  /** The function's reserved concurrency, or undefined when it reserves none. */
  async reservedConcurrency(functionName: string): Promise<number | undefined> {
    const { ReservedConcurrentExecutions: reserved } = await callDependency(
      'lambda',
      'GetFunctionConcurrency',
      () => this.client.send(new GetFunctionConcurrencyCommand({ FunctionName: functionName })),
    );
    return reserved;
  }
}
