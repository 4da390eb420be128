// The `webhook-inbox` command run in-process against a stack (`--stack NAME --region R`), as an operator
// runs it: the program cli/main.ts runs (cli/program.ts), the project's cdk.json in a directory of its own (INIT_CWD,
// where the command looks for it), its output kept for the test to read.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConsoleOperations } from '../../../cli/console/console-operations';
import { buildProgram } from '../../../cli/program';
import { reportError } from '../../../cli/shared/output';
import { resolveTarget } from '../../../cli/shared/target';
import { loadProjectConfig } from '../../../config/load';
import type { AwsCallLog } from '../../support/aws-call-log';
import { REGION } from '../../support/iam-template';

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

export class OperatorCli {
  private readonly cwd: string;

  constructor(
    private readonly log: AwsCallLog,
    private readonly stackName: string,
    configInput: Record<string, unknown>,
  ) {
    this.cwd = mkdtempSync(join(tmpdir(), 'webhook-inbox-iam-'));
    writeFileSync(join(this.cwd, 'cdk.json'), JSON.stringify({ context: { webhookInbox: configInput } }));
  }

  /** Runs one command as the operator; its exit code and what it printed. */
  async run(...args: string[]): Promise<CliRun> {
    // The command's own program (cli/program.ts builds it without running anything).
    const program = buildProgram();
    const out: string[] = [];
    const err: string[] = [];
    const { stdout, stderr } = process;
    const writeOut = stdout.write;
    const writeErr = stderr.write;
    const initCwd = process.env.INIT_CWD;
    process.env.INIT_CWD = this.cwd;
    stdout.write = ((chunk: string | Uint8Array) => out.push(String(chunk)) > 0) as typeof stdout.write;
    stderr.write = ((chunk: string | Uint8Array) => err.push(String(chunk)) > 0) as typeof stderr.write;
    process.exitCode = undefined;
    let code: number;
    try {
      await this.log.as('cli', () =>
        program.parseAsync(['node', 'webhook-inbox', ...args, '--stack', this.stackName, '--region', REGION]),
      );
      code = typeof process.exitCode === 'number' ? process.exitCode : 0;
    } catch (error) {
      code = reportError(error);
    } finally {
      stdout.write = writeOut;
      stderr.write = writeErr;
      process.exitCode = undefined;
      if (initCwd === undefined) delete process.env.INIT_CWD;
      else process.env.INIT_CWD = initCwd;
    }
    return { code, stdout: out.join(''), stderr: err.join('') };
  }

  /**
   * What the console (`webhook-inbox console --stack`) reads for its pages: providers, dead letters, and
   * the trends' duplicates (a refused metric read becomes a line on the page, so the log is what tells).
   */
  async consolePages(): Promise<void> {
    await this.log.as('cli', async () => {
      const config = loadProjectConfig(this.cwd);
      const target = await resolveTarget({ stack: this.stackName, region: REGION }, config, this.cwd);
      try {
        const pages = new ConsoleOperations(target, config, await target.clients());
        await pages.providers();
        await pages.dlqCounts();
        await pages.deadLetterGroups();
        await pages.duplicateTrend('24h', Date.now());
      } finally {
        target.close();
      }
    });
  }

  close(): void {
    rmSync(this.cwd, { recursive: true, force: true });
  }
}
