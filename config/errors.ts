/** An invalid configuration. The message names the bad key, e.g. `webhookInbox.queue.maxReceiveCount`. */
export class ConfigError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'ConfigError';
  }
}
