#!/usr/bin/env node
// The `webhook-inbox` command. The CLI is TypeScript; tsx loads it without a build step.
import { register } from 'tsx/esm/api';

// The AWS SDK versions are pinned on purpose (see package.json); its Node 22 notice is noise in a CLI.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

register();
await import('./main.ts');
