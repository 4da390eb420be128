// The AWS list prices the cost model uses, from bench/data/aws-prices.json: one file, with the date the
// figures are as of and, per item, where the figure comes from and whether it was confirmed from a stored
// page or is from knowledge only.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SectionAbort } from './section';

export const PRICE_FILE = join(dirname(fileURLToPath(import.meta.url)), '../data/aws-prices.json');

export const PRICE_KEYS = [
  'apiGatewayRestRequests',
  'apiGatewayHttpRequests',
  'wafRequests',
  'wafWebAclMonth',
  'wafRuleMonth',
  'lambdaArmGbSecond',
  'lambdaRequests',
  'sqsStandardRequests',
  'dynamodbOnDemandWrite',
  'dynamodbOnDemandRead',
  'dynamodbStorageGbMonth',
  'dynamodbPitrGbMonth',
  'secretsManagerApiCalls',
  'secretsManagerSecretMonth',
  's3StandardPut',
  's3StandardGet',
  's3StandardStorageGbMonth',
  'cloudwatchLogsIngestionGb',
  'cloudwatchLogsStorageGbMonth',
  'cloudwatchCustomMetricMonth',
  'cloudwatchAlarmMetricMonth',
  'cloudwatchDashboardMonth',
  'eventbridgePutEvents',
  'dataTransferOutGb',
] as const;
export type PriceKey = (typeof PRICE_KEYS)[number];

export interface PriceItem {
  /** USD for `per` units. */
  usd: number;
  per: number;
  unit: string;
  /** Short form for the table, e.g. "$0.40 / M, per 64 KB". */
  label: string;
  source: string;
  confirmed: 'stored-page' | 'knowledge';
  confirmedBy?: { url: string; publisher: string; pageDate: string }[];
  /** SQS and EventBridge: bytes per billed request or event. */
  chunkBytes?: number;
  /** HTTP API: bytes per metered request. */
  meteredBytes?: number;
}

export interface PriceFile {
  region: string;
  currency: string;
  date: string;
  compiledOn: string;
  items: Record<PriceKey, PriceItem>;
}

export interface Prices {
  file: PriceFile;
  /** USD for one unit. */
  unit(key: PriceKey): number;
  item(key: PriceKey): PriceItem;
}

export function loadPrices(path = PRICE_FILE): Prices {
  let file: PriceFile;
  try {
    file = JSON.parse(readFileSync(path, 'utf8')) as PriceFile;
  } catch (error) {
    throw new SectionAbort(`cannot read ${path}: ${(error as Error).message}`);
  }
  if (typeof file.date !== 'string' || !file.date) throw new SectionAbort(`${path}: no "date"`);
  for (const key of PRICE_KEYS) {
    const item = file.items?.[key];
    if (
      !item ||
      typeof item.usd !== 'number' ||
      typeof item.per !== 'number' ||
      item.per <= 0 ||
      typeof item.source !== 'string' ||
      (item.confirmed !== 'stored-page' && item.confirmed !== 'knowledge')
    ) {
      throw new SectionAbort(`${path}: item "${key}" is missing or lacks usd, per, source or confirmed`);
    }
  }
  if (
    !file.items.sqsStandardRequests.chunkBytes ||
    !file.items.eventbridgePutEvents.chunkBytes ||
    !file.items.apiGatewayHttpRequests.meteredBytes
  )
    throw new SectionAbort(`${path}: SQS and EventBridge need chunkBytes, the HTTP API meteredBytes`);
  return {
    file,
    unit: (key) => file.items[key].usd / file.items[key].per,
    item: (key) => file.items[key],
  };
}
