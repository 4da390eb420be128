// The SSRF guard's rule: which resolved addresses a destination that is not marked `internal` may never be
// sent to (loopback, private, link-local, cloud metadata, ...), since a URL from the config could otherwise
// reach the inbox's own network. Pure: the HTTP sender applies it to every address DNS gives, at connect
// time, so a name that resolves somewhere else on the second lookup (DNS rebinding) is caught too.
import { BlockList, isIP } from 'node:net';

export type ForbiddenReason =
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'metadata'
  | 'unspecified'
  | 'multicast'
  | 'reserved';

const RULES: readonly [ForbiddenReason, 'ipv4' | 'ipv6', string, number][] = [
  // Cloud metadata first: it sits inside link-local, and is the one an attacker wants.
  ['metadata', 'ipv4', '169.254.169.254', 32],
  ['metadata', 'ipv4', '169.254.170.2', 32], // ECS task metadata and credentials
  ['metadata', 'ipv4', '100.100.100.200', 32], // Alibaba Cloud
  ['metadata', 'ipv6', 'fd00:ec2::254', 128], // EC2 over IPv6
  ['metadata', 'ipv6', 'fd00:ec2::23', 128], // EC2 DNS
  ['unspecified', 'ipv4', '0.0.0.0', 8],
  ['unspecified', 'ipv6', '::', 128],
  ['loopback', 'ipv4', '127.0.0.0', 8],
  ['loopback', 'ipv6', '::1', 128],
  ['private', 'ipv4', '10.0.0.0', 8],
  ['private', 'ipv4', '172.16.0.0', 12],
  ['private', 'ipv4', '192.168.0.0', 16],
  ['private', 'ipv4', '100.64.0.0', 10], // carrier-grade NAT, also used inside clouds
  ['private', 'ipv4', '198.18.0.0', 15], // benchmarking
  ['private', 'ipv6', 'fc00::', 7], // unique local
  ['private', 'ipv6', 'fec0::', 10], // site-local: deprecated, still routed by some stacks
  ['private', 'ipv6', '64:ff9b:1::', 48], // local-use NAT64 (RFC 8215)
  ['link_local', 'ipv4', '169.254.0.0', 16],
  ['link_local', 'ipv6', 'fe80::', 10],
  ['multicast', 'ipv4', '224.0.0.0', 4],
  ['multicast', 'ipv6', 'ff00::', 8],
  ['reserved', 'ipv4', '240.0.0.0', 4], // and 255.255.255.255
  ['reserved', 'ipv4', '192.0.0.0', 24], // IETF protocol assignments
  ['reserved', 'ipv4', '192.0.2.0', 24], // documentation
  ['reserved', 'ipv4', '198.51.100.0', 24],
  ['reserved', 'ipv4', '203.0.113.0', 24],
  ['reserved', 'ipv6', '2001:db8::', 32],
  ['reserved', 'ipv6', '100::', 64], // discard-only
  ['reserved', 'ipv6', '2001::', 32], // Teredo: tunnels to an address it hides
  ['reserved', 'ipv4', '192.88.99.0', 24], // 6to4 relay anycast
  ['reserved', 'ipv6', '3fff::', 20], // documentation (RFC 9637)
  ['reserved', 'ipv6', '2001:2::', 48], // benchmarking
  ['reserved', 'ipv6', '2001:10::', 28], // ORCHID
  ['reserved', 'ipv6', '2001:20::', 28], // ORCHIDv2
  ['reserved', 'ipv6', '5f00::', 16], // SRv6 segment identifiers
];

const LISTS = new Map<ForbiddenReason, BlockList>();
for (const [reason, family, address, prefix] of RULES) {
  const list = LISTS.get(reason) ?? new BlockList();
  LISTS.set(reason, list);
  list.addSubnet(address, prefix, family);
}

/**
 * The eight 16-bit groups of an IPv6 address in any valid spelling (`::` anywhere, leading zeros, a dotted
 * IPv4 tail), so the rules below never depend on how the address was written.
 */
function ipv6Groups(address: string): number[] | undefined {
  let text = address.toLowerCase().split('%')[0] as string;
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const parse = (part: string | undefined) =>
    part ? part.split(':').map((g) => Number.parseInt(g, 16)) : [];
  const head = parse(halves[0]);
  const tail = parse(halves[1]);
  const groups =
    halves.length === 2 ? [...head, ...Array(8 - head.length - tail.length).fill(0), ...tail] : head;
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff)
    ? groups
    : undefined;
}

/**
 * The IPv4 address an IPv6 one stands for, where it embeds one that the network will reach: mapped
 * (::ffff:a.b.c.d), translated (SIIT, ::ffff:0:a.b.c.d), compatible (::a.b.c.d), NAT64 (64:ff9b::/96)
 * and 6to4 (2002:AABB:CCDD::/48), however the address is spelled.
 */
function embeddedIpv4(address: string): string | undefined {
  const g = ipv6Groups(address);
  if (!g) return undefined;
  const v4 = (high: number, low: number) => [high >> 8, high & 255, low >> 8, low & 255].join('.');
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const [g0, g1, g2, , g4, g5, g6, g7] = g as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  if (zeros(0, 5) && g5 === 0xffff) return v4(g6, g7); // mapped
  if (zeros(0, 4) && g4 === 0xffff && g5 === 0) return v4(g6, g7); // translated
  if (zeros(0, 6) && g6 !== 0) return v4(g6, g7); // compatible (::1 and :: are their own)
  if (g0 === 0x64 && g1 === 0xff9b && zeros(2, 6)) return v4(g6, g7); // NAT64
  if (g0 === 0x2002) return v4(g1, g2); // 6to4
  return undefined;
}

/** Why the address may not be forwarded to, or undefined if it may. Anything that is not an IP is refused. */
export function forbiddenAddress(address: string): ForbiddenReason | undefined {
  const family = isIP(address);
  if (family === 0) return 'reserved';
  if (family === 6) {
    const v4 = embeddedIpv4(address);
    if (v4 !== undefined) return forbiddenAddress(v4);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  for (const [reason, list] of LISTS) if (list.check(address, type)) return reason;
  return undefined;
}
