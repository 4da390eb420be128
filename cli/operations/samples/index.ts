// Realistic sample events per built-in scheme, for `webhook-inbox send` and `selftest`. Keyed by scheme,
// so a provider configured under another id gets its scheme's samples.
import type { SchemeName } from '../../../config/schema';
import type { SchemeSamples } from './context';
import { genericHmacSamples } from './generic-hmac';
import { githubSamples } from './github';
import { linearSamples } from './linear';
import { mobazhaSamples } from './mobazha';
import { paddleSamples } from './paddle';
import { shopifySamples } from './shopify';
import { slackSamples } from './slack';
import { squareSamples } from './square';
import { standardWebhooksSamples } from './standard-webhooks';
import { stripeSamples } from './stripe';
import { zoomSamples } from './zoom';

export const SAMPLES: Record<SchemeName, SchemeSamples> = {
  github: githubSamples,
  stripe: stripeSamples,
  'standard-webhooks': standardWebhooksSamples,
  shopify: shopifySamples,
  slack: slackSamples,
  mobazha: mobazhaSamples,
  'generic-hmac': genericHmacSamples,
  zoom: zoomSamples,
  paddle: paddleSamples,
  linear: linearSamples,
  square: squareSamples,
};

export type { Sample, SampleContext, SchemeSamples } from './context';
export { sampleContext, stableIds } from './context';
