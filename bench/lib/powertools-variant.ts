// The Lambdas as they would be with Powertools Logger and Metrics instead of the hand-written telemetry:
// an esbuild plugin that bundles the real handler entries with two modules swapped, the JSON/EMF adapter
// for a LogSink/MetricSink over `new Logger()` and `new Metrics()`, and the log-context middleware for
// Powertools' `injectLambdaContext` and `logMetrics` middy middlewares. Everything else in the bundle is
// the shipped code, so the difference in bytes and import CPU is what the switch would cost.
//
// Powertools Logger is not a project dependency, so the plugin is built only where it is installed: in the
// project's node_modules, or in the folder BENCH_POWERTOOLS_DIR names (a scratch `npm i` of it).
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Plugin } from 'esbuild';

export const POWERTOOLS_DIR_ENV = 'BENCH_POWERTOOLS_DIR';
const PACKAGES = ['@aws-lambda-powertools/logger', '@aws-lambda-powertools/metrics'] as const;
export const POWERTOOLS_INSTALL = `npm i -E ${PACKAGES.map((name) => `${name}@2.35.0`).join(' ')}`;

/** The swapped-in adapter. JavaScript: it is never type-checked, since its imports may not be installed. */
const TELEMETRY_SOURCE = `
import { Logger } from '@aws-lambda-powertools/logger';
import { Metrics } from '@aws-lambda-powertools/metrics';
export function jsonTelemetry({ service, namespace }) {
  const logger = new Logger({ serviceName: service });
  const metrics = new Metrics({ namespace, serviceName: service });
  return {
    // No setContext: injectLambdaContext puts the request id and cold-start flag on every line itself.
    logger: {
      info: (message, attributes) => logger.info(message, attributes),
      warn: (message, attributes) => logger.warn(message, attributes),
      error: (message, attributes) => logger.error(message, attributes),
      powertools: { logger, metrics },
    },
    metrics: {
      addMetric: (name, unit, value) => metrics.addMetric(name, unit, value),
      addDimensionedMetric: (name, dimension, unit, value) => {
        const single = metrics.singleMetric();
        single.addDimension(dimension.name, dimension.value);
        single.addMetric(name, unit, value);
      },
      publishStoredMetrics: () => metrics.publishStoredMetrics(),
    },
  };
}
`;

/** The swapped-in log context: middy's use() takes an array, so one call site wires both middlewares. */
const LOG_CONTEXT_SOURCE = `
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import { logMetrics } from '@aws-lambda-powertools/metrics/middleware';
export function logContext(sink) {
  const { logger, metrics } = sink.powertools;
  return [injectLambdaContext(logger), logMetrics(metrics)];
}
`;

const SWAPS: Record<string, string> = {
  'adapters/json-telemetry': TELEMETRY_SOURCE,
  'middleware/log-context': LOG_CONTEXT_SOURCE,
};
const NAMESPACE = 'powertools-variant';
const RESOLVING = Symbol('resolving');

export interface PowertoolsInstall {
  /** The node_modules' parent that holds both packages. */
  dir: string;
  /** "Logger 2.35.0, Metrics 2.35.0" */
  versions: string;
}

function versionIn(dir: string, name: string): string | undefined {
  const manifest = join(dir, 'node_modules', name, 'package.json');
  if (!existsSync(manifest)) return undefined;
  return (JSON.parse(readFileSync(manifest, 'utf8')) as { version?: string }).version;
}

/** The first of the project and BENCH_POWERTOOLS_DIR that has both packages, or undefined. */
export function findPowertools(root: string, env = process.env): PowertoolsInstall | undefined {
  for (const dir of [root, env[POWERTOOLS_DIR_ENV]]) {
    if (!dir) continue;
    const versions = PACKAGES.map((name) => versionIn(dir, name));
    if (versions.every(Boolean)) {
      return { dir, versions: `Logger ${versions[0]}, Metrics ${versions[1]}` };
    }
  }
  return undefined;
}

export function powertoolsPlugin(root: string, install: PowertoolsInstall): Plugin {
  return {
    name: NAMESPACE,
    setup(build) {
      build.onResolve({ filter: /\/(adapters\/json-telemetry|middleware\/log-context)$/ }, (args) => {
        const swap = Object.keys(SWAPS).find((key) => args.path.endsWith(key));
        return swap ? { path: swap, namespace: NAMESPACE } : undefined;
      });
      build.onLoad({ filter: /.*/, namespace: NAMESPACE }, (args) => ({
        contents: SWAPS[args.path],
        loader: 'js',
        resolveDir: root,
      }));
      // Every Powertools package from one place, the project's copy first: a second copy of commons (which
      // Powertools batch brings into the processor) would count bytes the switch would not add.
      build.onResolve({ filter: /^@aws-lambda-powertools\/|^@aws\/lambda-invoke-store$/ }, async (args) => {
        if (args.pluginData === RESOLVING) return undefined;
        for (const resolveDir of [root, install.dir]) {
          const found = await build.resolve(args.path, {
            kind: args.kind,
            resolveDir,
            pluginData: RESOLVING,
          });
          if (found.errors.length === 0) return { path: found.path, sideEffects: found.sideEffects };
        }
        return undefined;
      });
    },
  };
}
