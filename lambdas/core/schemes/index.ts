// The registry of built-in schemes, by name.
import type { SchemeName } from '../../../config/schema';
import { genericHmac } from './generic-hmac';
import { github } from './github';
import { linear } from './linear';
import { mobazha } from './mobazha';
import { paddle } from './paddle';
import { shopify } from './shopify';
import { slack } from './slack';
import { square } from './square';
import { standardWebhooks } from './standard-webhooks';
import { stripe } from './stripe';
import type { Scheme } from './types';
import { zoom } from './zoom';

export const SCHEMES: Record<SchemeName, Scheme> = {
  github,
  stripe,
  'standard-webhooks': standardWebhooks,
  shopify,
  slack,
  mobazha,
  'generic-hmac': genericHmac,
  zoom,
  paddle,
  linear,
  square,
};

export type { HeaderMap, Scheme, SignInput, VerifyContext, VerifyOutcome, WebhookRequest } from './types';
export { VerifiedDelivery } from './verified-delivery';
