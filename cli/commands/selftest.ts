// `webhook-inbox selftest <provider>`: the verification drill against the local instance or a
// deployed endpoint. A valid delivery is accepted and processed once, the identical delivery is
// deduplicated, a one-byte change, a stale timestamp and a wrong secret are refused, and where the scheme
// signs an id, the same id with a different body is refused as a conflict.
import type { Command } from 'commander';
import pc from 'picocolors';
import type { ResolvedProvider } from '../../config';
import type { DynamoInbox } from '../../lambdas/adapters/dynamo-inbox';
import { checkProcessedOnce, type ProcessedOnceResult } from '../operations/processed-once';
import type { Delivery, HttpResult, SignedDelivery } from '../operations/signed-delivery';
import { addHelpAfter } from '../shared/help-text';
import { CLI } from '../shared/hint';
import {
  addJsonOption,
  addTargetOptions,
  httpUrl,
  type JsonOption,
  type TargetOptions,
} from '../shared/options';
import { print, printJson, table, UsageError } from '../shared/output';

interface SelftestOptions extends TargetOptions, JsonOption {
  url?: string;
  all?: boolean;
}

type Outcome = 'pass' | 'fail' | 'skip';

export interface CheckResult {
  id: string;
  check: string;
  expected: string;
  got: string;
  result: Outcome;
}

export interface ProviderReport {
  provider: string;
  scheme: string;
  url: string;
  passed: boolean;
  checks: CheckResult[];
}

export function registerSelftest(program: Command): void {
  const command = program
    .command('selftest')
    .description("run the verification drill against a provider's endpoint")
    .argument('[providers...]', 'provider ids from cdk.json')
    .option('--all', 'every configured provider')
    .option(
      '--url <url>',
      "drill this URL instead of the target's /webhooks/<provider> (one provider)",
      httpUrl,
    );
  addTargetOptions(command);
  addJsonOption(command);
  addHelpAfter(command, [
    {
      heading: 'Checks (a failed one makes the exit code 1):',
      items: [
        ['valid delivery accepted', '202'],
        [
          'processed exactly once',
          'the inbox shows it processed (waits up to 20 s), with no failed attempt, and 2 s later unchanged (processedAt, processing token)',
        ],
        ['identical delivery deduplicated', '200 {"duplicate":true}'],
        ['one-byte-modified body rejected', '401'],
        ['stale timestamp rejected', '401 (n/a for schemes that sign no timestamp: github, shopify, square)'],
        ['wrong secret rejected', '401'],
        [
          'same id, different body refused',
          '409 (where the scheme signs an id: stripe, standard-webhooks, mobazha, ...)',
        ],
      ],
    },
    '',
    "With --url the processed check still reads the target's inbox table (the local instance or --stack).",
    `Run it after registering the URL with the provider, with the secret the provider uses stored (\`${CLI} secrets rotate <provider> --value ...\`).`,
    '',
    'Examples:',
    `$ ${CLI} selftest github`,
    `$ ${CLI} selftest --all --json`,
    `$ ${CLI} selftest stripe --stack my-inbox`,
  ]);
  command.action(async (providers: string[], options: SelftestOptions) => {
    process.exitCode = await runSelftest(providers, options);
  });
}

async function runSelftest(ids: string[], options: SelftestOptions): Promise<number> {
  const { loadProject, providerOf } = await import('../shared/project');
  const { config, cwd } = await loadProject();
  if (ids.length === 0 && !options.all) throw new UsageError('name a provider to drill, or pass --all');
  const providers = options.all ? Object.values(config.providers) : ids.map((id) => providerOf(config, id));
  if (options.url !== undefined && providers.length !== 1) {
    throw new UsageError('--url drills one endpoint: name exactly one provider');
  }
  const { resolveTarget } = await import('../shared/target');
  const target = await resolveTarget(options, config, cwd);
  try {
    const { DynamoInbox } = await import('../../lambdas/adapters/dynamo-inbox');
    const inbox = new DynamoInbox((await target.clients()).dynamodb, target.tableName);
    const reports: ProviderReport[] = [];
    for (const provider of providers) {
      const secret = (await target.secrets.list(provider.id))[0];
      const url = options.url ?? target.endpointUrl(provider.id);
      if (!options.json)
        print(`${pc.bold(`selftest ${provider.id}`)} → ${url} ${pc.dim(`(${target.description})`)}`);
      const report = await drill(provider, { url, secret, inbox });
      reports.push(report);
      if (!options.json) printReport(report);
    }
    const passed = reports.every((r) => r.passed);
    if (options.json) {
      printJson({ passed, target: target.description, providers: reports });
    } else if (reports.length > 1) {
      const failed = reports.filter((r) => !r.passed).map((r) => r.provider);
      print(
        failed.length === 0
          ? pc.green(`all ${reports.length} providers passed`)
          : pc.red(`${failed.length} of ${reports.length} providers failed: ${failed.join(', ')}`),
      );
    }
    return passed ? 0 : 1;
  } finally {
    target.close();
  }
}

const RESULT_LABEL: Record<Outcome, string> = {
  pass: pc.green('PASS'),
  fail: pc.red('FAIL'),
  skip: pc.dim('SKIP'),
};

function printReport(report: ProviderReport): void {
  print(
    table(
      ['check', 'expected', 'got', 'result'],
      report.checks.map((c) => [c.check, c.expected, c.got, RESULT_LABEL[c.result]]),
    ),
  );
  const count = (outcome: Outcome) => report.checks.filter((c) => c.result === outcome).length;
  const line = `${report.provider}: ${count('pass')} passed, ${count('skip')} skipped, ${count('fail')} failed`;
  print(report.passed ? pc.green(line) : pc.red(line));
  print();
}

/** The body with one byte changed (a letter's case or a digit), somewhere in the middle. */
function tamper(body: Buffer): Buffer {
  const copy = Buffer.from(body);
  const isDigit = (b: number) => b >= 0x30 && b <= 0x39;
  const isLetter = (b: number) => (b | 0x20) >= 0x61 && (b | 0x20) <= 0x7a;
  for (let offset = 0; offset < copy.length; offset++) {
    const at = (Math.floor(copy.length / 2) + offset) % copy.length;
    const byte = copy[at] as number;
    if (isDigit(byte)) copy[at] = 0x30 + ((byte - 0x30 + 1) % 10);
    else if (isLetter(byte)) copy[at] = byte ^ 0x20;
    else continue;
    return copy;
  }
  copy[0] = (copy[0] ?? 0) ^ 0x01;
  return copy;
}

async function drill(
  provider: ResolvedProvider,
  context: { url: string; secret: string | undefined; inbox: DynamoInbox },
): Promise<ProviderReport> {
  const d = await import('../operations/signed-delivery');
  const { url, inbox } = context;
  const checks: CheckResult[] = [];
  const report = (): ProviderReport => ({
    provider: provider.id,
    scheme: provider.scheme,
    url,
    passed: checks.every((c) => c.result !== 'fail'),
    checks,
  });
  const expectStatus = (id: string, check: string, status: number, answer: HttpResult) =>
    checks.push({
      id,
      check,
      expected: String(status),
      got: d.summarize(answer),
      result: answer.status === status ? 'pass' : 'fail',
    });

  const secret = context.secret;
  if (secret === undefined) {
    checks.push({
      id: 'secret',
      check: 'provider has a secret',
      expected: 'a secret',
      got: 'none',
      result: 'fail',
    });
    return report();
  }
  const nowSeconds = () => Math.floor(Date.now() / 1000);
  const sign = (delivery: Delivery, timestamp = nowSeconds(), key = secret) =>
    d.signDelivery(provider, delivery, { secret: key, timestamp, url });
  const send = (signed: SignedDelivery, body = signed.body) => d.post(url, body, signed.headers);

  // 1. A valid delivery.
  const token = d.newToken();
  const delivery = d.sampleDelivery(provider, { nowMs: Date.now(), url, token });
  const valid = sign(delivery);
  const local = d.checkLocally(provider, { ...valid, url }, [secret]);
  if (!local.ok) {
    checks.push({
      id: 'sample',
      check: 'sample verifies locally',
      expected: 'valid',
      got: local.reason,
      result: 'fail',
    });
    return report();
  }
  const accepted = await send(valid);
  expectStatus('accepted', 'valid delivery accepted', 202, accepted);

  // 2. The identical delivery again: the provider's retry, signed anew at send time as the providers do
  // (a fresh timestamp), so a short window (Paddle's 5 s) cannot turn a slow first answer into a 401.
  const again = await send(sign(delivery));
  const duplicate = again.status === 200 && (again.answer as { duplicate?: unknown })?.duplicate === true;
  checks.push({
    id: 'duplicate',
    check: 'identical delivery deduplicated',
    expected: '200 duplicate',
    got: d.summarize(again),
    result: duplicate ? 'pass' : 'fail',
  });
  // Watched from now on, once the duplicate has been answered, while the checks below run.
  const once: Promise<ProcessedOnceResult> | undefined =
    accepted.status === 202
      ? checkProcessedOnce(() => inbox.get(`${provider.id}#${local.dedupKey}`))
      : undefined;
  once?.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile

  // 3. One byte of the body changed, signature headers as signed.
  expectStatus('tampered', 'one-byte-modified body rejected', 401, await send(valid, tamper(valid.body)));

  // 4. Signed correctly, but outside the window (older than the tolerance by ten minutes).
  const staleMs = Date.now() - (provider.toleranceSeconds + 600) * 1000;
  const stale = sign(d.sampleDelivery(provider, { nowMs: staleMs, url }), Math.floor(staleMs / 1000));
  if (d.checkLocally(provider, { ...stale, url }, [secret]).ok) {
    checks.push({
      id: 'stale_timestamp',
      check: 'stale timestamp rejected',
      expected: '401',
      got: 'n/a (scheme signs no timestamp)',
      result: 'skip',
    });
  } else {
    expectStatus('stale_timestamp', 'stale timestamp rejected', 401, await send(stale));
  }

  // 5. Signed with a secret the inbox does not have.
  const forged = sign(
    d.sampleDelivery(provider, { nowMs: Date.now(), url }),
    nowSeconds(),
    d.randomSecret(provider),
  );
  expectStatus('wrong_secret', 'wrong secret rejected', 401, await send(forged));

  // 6. The valid delivery's signed id with another body: a sender bug or a replay with edits.
  const variant = sign(d.sampleDelivery(provider, { nowMs: Date.now(), url, token }));
  const variantCheck = d.checkLocally(provider, { ...variant, url }, [secret]);
  if (variantCheck.ok && variantCheck.dedupKey === local.dedupKey && !variant.body.equals(valid.body)) {
    expectStatus('conflict', 'same id, different body refused', 409, await send(variant));
  } else {
    checks.push({
      id: 'conflict',
      check: 'same id, different body refused',
      expected: '409',
      got: 'n/a (no signed id: the dedup key is the body hash)',
      result: 'skip',
    });
  }

  // 7. The accepted delivery is processed, once (its result last: the checks above overlap the wait).
  const processed: CheckResult = {
    id: 'processed',
    check: 'processed exactly once',
    expected: 'processed, then unchanged',
    got: 'not accepted',
    result: 'fail',
  };
  if (once) Object.assign(processed, await once);
  checks.splice(1, 0, processed);
  return report();
}
