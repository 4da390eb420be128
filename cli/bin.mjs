#!/usr/bin/env node
// The `webhook-inbox` command. The CLI is TypeScript; tsx loads it without a build step.
import { register } from 'tsx/esm/api';

register();
await import('./main.ts');
