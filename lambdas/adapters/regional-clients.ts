// One client per region, for targets named by ARN in other regions: an SQS queue or an EventBridge bus is
// called at its own region's endpoint and the request signed for that region, which the forwarder's own
// client (its Lambda's region) cannot do. Built once per process and kept, as every other client.

export interface RegionalClientsOptions<C> {
  /** The client of the process's own region, used for it and for targets whose region is not known. */
  home: C;
  /** @default none: then only targets of unknown region use `home` */
  homeRegion?: string;
  /** A client for another region (endpoint overrides, such as an emulator's, apply to every region). */
  make(region: string): C;
  /** Regions to build a client for now (a Lambda's init) rather than on first use. */
  regions?: Iterable<string | undefined>;
}

/** The client for a region; `undefined` (a bus by name, an emulator's queue) is the home client. */
export type ClientForRegion<C> = (region: string | undefined) => C;

export function regionalClients<C>(options: RegionalClientsOptions<C>): ClientForRegion<C> {
  const clients = new Map<string, C>();
  if (options.homeRegion !== undefined) clients.set(options.homeRegion, options.home);
  const clientFor: ClientForRegion<C> = (region) => {
    if (region === undefined) return options.home;
    let client = clients.get(region);
    if (client === undefined) {
      client = options.make(region);
      clients.set(region, client);
    }
    return client;
  };
  for (const region of options.regions ?? []) clientFor(region);
  return clientFor;
}
