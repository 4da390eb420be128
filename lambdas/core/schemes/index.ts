// The registry of built-in schemes, by name.
import type { SchemeName } from '../../../config/schema';
import { github } from './github';
import { standardWebhooks } from './standard-webhooks';
import { stripe } from './stripe';
import type { Scheme } from './types';

export const SCHEMES: Partial<Record<SchemeName, Scheme>> = {
  github,
  stripe,
  'standard-webhooks': standardWebhooks,
};

export type { HeaderMap, Scheme, SignInput, VerifyContext, VerifyOutcome, WebhookRequest } from './types';
export { VerifiedDelivery } from './verified-delivery';
