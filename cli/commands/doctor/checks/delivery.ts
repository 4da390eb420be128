// The selftest's own drill, cut to what says the deployed inbox works: one signed sample delivery through
// the public URL is answered 202 and its record reaches `processed` (once), and another method on the same
// URL is refused with 405. The delivery is real: it is recorded, and your handlers process the sample event.
import type { ResolvedProvider } from '../../../../config';
import { checkProcessedOnce } from '../../../operations/processed-once';
import { CLI } from '../../../shared/hint';
import { describeError } from '../../../shared/output';
import { blockedBy, type CheckResult, cannotCheck, fail, pass, skipped } from '../checklist';
import type { DoctorContext } from '../ports';
import { frontDoorOf } from './front-door';
import { OUTPUTS } from './outputs';
import { READ_TABLE } from './resources';
import { secretCheckId } from './secrets';

export const DELIVERY = 'delivery';
export const PROCESSED = 'processed';
export const METHOD = 'method';

const DELIVERY_TITLE = 'a signed test delivery is answered 202';
const PROCESSED_TITLE = 'the test delivery reaches processed';
const METHOD_TITLE = 'another method on the same URL gets 405';

/** What to look at for each refusal of a correctly signed delivery. */
function deliveryFix(status: number, provider: string, stack: string): string {
  if (status === 401) {
    return `the inbox did not verify a delivery signed with its stored secret: warm Lambdas reload secrets within 5 minutes of a change; else check \`${CLI} secrets show ${provider} ${stack}\``;
  }
  if (status === 403)
    return 'the front door refused it: check the WAF web ACL (its per-IP rate rule) or a resource policy';
  if (status === 404)
    return 'the URL answered 404: check the Endpoint output and that the provider is deployed';
  if (status === 429) return 'throttled: raise the stage throttle or verifyReservedConcurrency';
  if (status >= 500)
    return "see the verify Lambda's log group for the request's reason (a dependency, a timeout)";
  return "see the verify Lambda's log group for the request's reason";
}

export async function checkDelivery(
  ctx: DoctorContext,
  done: readonly CheckResult[],
): Promise<CheckResult[]> {
  const method = await checkMethod(ctx, done);
  if (!ctx.options.delivery) {
    return [
      skipped(DELIVERY, DELIVERY_TITLE, '--no-delivery'),
      skipped(PROCESSED, PROCESSED_TITLE, '--no-delivery'),
      method,
    ];
  }
  const blocked = blockedBy(done, [OUTPUTS]);
  const provider = Object.values(ctx.config.providers).find(
    (p) => done.find((r) => r.id === secretCheckId(p.id))?.status === 'pass',
  );
  const reason =
    blocked ?? (provider === undefined ? 'no provider has a secret that passed its check' : undefined);
  if (reason !== undefined || provider === undefined || ctx.target === undefined) {
    const why = reason ?? 'no target';
    return [cannotCheck(DELIVERY, DELIVERY_TITLE, why), cannotCheck(PROCESSED, PROCESSED_TITLE, why), method];
  }
  return [...(await drillOne(ctx, provider, done)), method];
}

async function drillOne(
  ctx: DoctorContext,
  provider: ResolvedProvider,
  done: readonly CheckResult[],
): Promise<CheckResult[]> {
  const target = ctx.target;
  if (target === undefined) return [];
  const d = await import('../../../operations/signed-delivery');
  const url = target.endpointUrl(provider.id);
  const notSent = (why: string) => [
    cannotCheck(DELIVERY, DELIVERY_TITLE, why),
    cannotCheck(PROCESSED, PROCESSED_TITLE, why),
  ];
  let secret: string | undefined;
  try {
    secret = (await target.secrets.list(provider.id))[0];
  } catch (error) {
    return notSent(`cannot read ${provider.id}'s secret again to sign with: ${describeError(error)}`);
  }
  if (secret === undefined) return notSent(`${provider.id}'s secret is gone since its check`);
  const nowMs = ctx.clock.nowMs();
  const delivery = d.sampleDelivery(provider, { nowMs, url });
  const signed = d.signDelivery(provider, delivery, { secret, timestamp: Math.floor(nowMs / 1000), url });
  const local = d.checkLocally(provider, { ...signed, url }, [secret], Math.floor(nowMs / 1000));
  if (!local.ok) {
    const why = `the sample does not verify with the stored secret here: ${local.reason}`;
    return [
      fail(
        DELIVERY,
        DELIVERY_TITLE,
        why,
        `set a ${provider.scheme} secret: \`${CLI} secrets rotate ${provider.id}\``,
      ),
      cannotCheck(PROCESSED, PROCESSED_TITLE, `needs "${DELIVERY_TITLE}", which failed`),
    ];
  }
  const key = `${provider.id}#${local.dedupKey}`;
  const wrote = `one signed ${provider.id} sample (${delivery.eventType}, inbox key ${key}): recorded, and processed by your handlers`;
  let answer: Awaited<ReturnType<typeof ctx.http.post>>;
  try {
    answer = await ctx.http.post(url, signed.body, signed.headers);
  } catch (error) {
    const why = describeError(error);
    return [
      fail(
        DELIVERY,
        DELIVERY_TITLE,
        `${url}: ${why}`,
        "check the Endpoint output and this machine's network",
      ),
      cannotCheck(PROCESSED, PROCESSED_TITLE, `needs "${DELIVERY_TITLE}", which failed`),
    ];
  }
  const stack = `--stack ${ctx.stack.name}`;
  if (answer.status !== 202) {
    return [
      fail(
        DELIVERY,
        DELIVERY_TITLE,
        `${url} answered ${d.summarize(answer)}`,
        deliveryFix(answer.status, provider.id, stack),
        { wrote: `one signed ${provider.id} sample, refused` },
      ),
      cannotCheck(PROCESSED, PROCESSED_TITLE, `needs "${DELIVERY_TITLE}", which failed`),
    ];
  }
  const accepted = pass(DELIVERY, DELIVERY_TITLE, `${provider.id} at ${url}: 202`, { wrote });
  const unreadable = blockedBy(done, [READ_TABLE]);
  if (unreadable !== undefined) return [accepted, cannotCheck(PROCESSED, PROCESSED_TITLE, unreadable)];
  let once: Awaited<ReturnType<typeof checkProcessedOnce>>;
  try {
    once = await checkProcessedOnce(() => ctx.inbox.get(key), ctx.timing.processed);
  } catch (error) {
    // The delivery was sent and accepted: that stays reported, with what it wrote.
    return [
      accepted,
      cannotCheck(PROCESSED, PROCESSED_TITLE, `cannot read its record: ${describeError(error)}`),
    ];
  }
  return [
    accepted,
    once.result === 'pass'
      ? pass(PROCESSED, PROCESSED_TITLE, once.got)
      : fail(
          PROCESSED,
          PROCESSED_TITLE,
          once.got,
          `look at it with \`${CLI} deliveries show ${key} ${stack}\` and the processor's log group`,
        ),
  ];
}

/** A GET: no body, nothing recorded. Only API Gateway's HTTP API answers 404 instead (documented). */
async function checkMethod(ctx: DoctorContext, done: readonly CheckResult[]): Promise<CheckResult> {
  const blocked = blockedBy(done, [OUTPUTS]);
  const provider = Object.values(ctx.config.providers)[0];
  if (blocked !== undefined || provider === undefined || ctx.target === undefined) {
    return cannotCheck(METHOD, METHOD_TITLE, blocked ?? 'no provider is configured');
  }
  const url = ctx.target.endpointUrl(provider.id);
  let status: number;
  try {
    status = await ctx.http.request('GET', url);
  } catch (error) {
    return fail(
      METHOD,
      METHOD_TITLE,
      `${url}: ${describeError(error)}`,
      "check the Endpoint output and this machine's network",
    );
  }
  if (status === 405) return pass(METHOD, METHOD_TITLE, `GET ${url}: 405`);
  const frontDoor = await frontDoorOf(ctx);
  if (status === 404 && frontDoor === 'http') {
    return pass(
      METHOD,
      METHOD_TITLE,
      `GET ${url}: 404, what an API Gateway HTTP API answers for every other method (it has no 405)`,
    );
  }
  if (status === 404 && frontDoor === undefined) {
    // An HTTP API's documented answer, or a wrong URL: only the stack's resources tell which.
    return cannotCheck(
      METHOD,
      METHOD_TITLE,
      `GET ${url}: 404, what an HTTP API (api: 'http') answers for every other method; which front door the stack has could not be read from its resources (cloudformation:ListStackResources)`,
    );
  }
  return fail(
    METHOD,
    METHOD_TITLE,
    `GET ${url}: ${status}`,
    'redeploy with `npx cdk deploy`: the front door should refuse every method but POST',
  );
}
