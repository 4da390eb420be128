// The project the command runs in: its configuration (cdk.json) and the provider a command names. Loaded
// on demand, after commander has parsed the line, so `--help` and usage errors stay fast.
import type { Config, ResolvedProvider } from '../../config';
import { providerById } from '../../config/provider-lookup';
import { CliError, UsageError } from './output';

export interface Project {
  /** Where cdk.json and `.webhook-inbox/` are: the directory the command was run from. */
  cwd: string;
  config: Config;
}

export async function loadProject(): Promise<Project> {
  const { loadProjectConfig, projectDir } = await import('../../config/load');
  const cwd = projectDir();
  try {
    return { cwd, config: loadProjectConfig(cwd) };
  } catch (error) {
    if (error instanceof Error && error.name === 'ConfigError' && error.message.startsWith('cannot read')) {
      throw new CliError(
        `no webhook-inbox project here: ${error.message}`,
        'run the command in the directory that holds cdk.json',
      );
    }
    throw error;
  }
}

export function providerOf(config: Config, id: string): ResolvedProvider {
  const provider = providerById(config, id);
  if (!provider) {
    throw new UsageError(
      `unknown provider "${id}"; configured providers: ${Object.keys(config.providers).join(', ')}`,
    );
  }
  return provider;
}
