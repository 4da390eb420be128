import { describe, expect, it } from 'vitest';
import {
  type ForbiddenReason,
  forbiddenAddress,
} from '../../../../../lambdas/core/destinations/address-policy';

const cases = (reason: ForbiddenReason | undefined, addresses: string[]) =>
  addresses.map((address) => [address, reason] as const);

describe('forbiddenAddress', () => {
  it.each([
    ...cases('loopback', ['127.0.0.1', '127.255.255.254']),
    ...cases('private', [
      '10.0.0.7',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '100.64.0.1',
      '198.18.0.1',
    ]),
    ...cases('metadata', ['169.254.169.254', '169.254.170.2', '100.100.100.200']),
    ...cases('link_local', ['169.254.1.1']),
    ...cases('unspecified', ['0.0.0.0', '0.1.2.3']),
    ...cases('multicast', ['224.0.0.1', '239.255.255.250']),
    ...cases('reserved', [
      '240.0.0.1',
      '255.255.255.255',
      '192.0.0.8',
      '192.0.2.1',
      '198.51.100.1',
      '203.0.113.9',
      '192.88.99.1',
    ]),
  ])('refuses IPv4 %s as %s', (address, reason) => {
    expect(forbiddenAddress(address)).toBe(reason);
  });

  it.each([
    ...cases('loopback', ['::1', '0:0:0:0:0:0:0:1']),
    ...cases('unspecified', ['::']),
    ...cases('private', ['fc00::1', 'fd12:3456:789a::1']),
    ...cases('metadata', ['fd00:ec2::254', 'fd00:ec2::23']),
    ...cases('link_local', ['fe80::1', 'febf::1', 'fe80::1%eth0']),
    ...cases('multicast', ['ff02::1']),
    ...cases('reserved', ['2001:db8::1', '100::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2']),
    ...cases('private', ['fec0::1', '64:ff9b:1::a00:1']), // site-local, local-use NAT64
  ])('refuses IPv6 %s as %s', (address, reason) => {
    expect(forbiddenAddress(address)).toBe(reason);
  });

  it.each([
    ...cases('loopback', [
      '::ffff:127.0.0.1', // mapped, dotted
      '::ffff:7f00:1', // mapped, as URL parsing and the resolver write it
      '::FFFF:127.0.0.1',
      '0:0:0:0:0:ffff:7f00:1',
      '::127.0.0.1', // compatible
      '::7f00:1', // compatible, as URL parsing writes [::127.0.0.1]
      '::ffff:0:7f00:1', // translated (SIIT)
      '::ffff:0:127.0.0.1',
      '64:ff9b::127.0.0.1', // NAT64
      '64:ff9b::7f00:1',
      '2002:7f00:1::1', // 6to4
      '2002:7f00:0001:0:0:0:0:1',
    ]),
    ...cases('metadata', [
      '::ffff:169.254.169.254',
      '::ffff:a9fe:a9fe',
      '64:ff9b::a9fe:a9fe',
      '2002:a9fe:a9fe::',
    ]),
    ...cases('private', ['::ffff:10.0.0.7', '64:ff9b::a00:7', '2002:c0a8:101::1', '::a00:7']),
  ])('refuses %s, which embeds an IPv4 address, as that address (%s)', (address, reason) => {
    expect(forbiddenAddress(address)).toBe(reason);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '1.1.1.1',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::1',
    '2a00:1450:4001:82b::200e',
    '::ffff:93.184.216.34',
    '64:ff9b::5db8:d822',
    '2002:5db8:d822::1',
  ])('allows the public address %s', (address) => {
    expect(forbiddenAddress(address)).toBeUndefined();
  });

  it.each([
    'localhost',
    '',
    'hooks.example.com',
    '[::1]',
    '127.1',
    '2130706433',
    '0x7f000001',
    '127.0.0.1:80',
  ])('refuses %j, which is not an IP address, as reserved', (text) => {
    expect(forbiddenAddress(text)).toBe('reserved');
  });
});

describe('forbiddenAddress: IPv6 however it is spelled, and the newer special ranges', () => {
  it.each([
    ...cases('loopback', [
      '0:0:0:0:0:0:7f00:1',
      '0000:0000:0000:0000:0000:0000:7f00:0001',
      '64:ff9b:0:0:0:0:7f00:1',
      '0:0:0:0:0:ffff:7f00:1',
      '0:0:0:0:ffff:0:7f00:1',
      '0:0:0:0:0:0:0:1',
    ]),
    ...cases('private', ['0:0:0:0:0:ffff:a00:7', '64:ff9b::10.0.0.7']),
    ...cases('metadata', ['0:0:0:0:0:ffff:a9fe:a9fe']),
    ...cases('reserved', ['3fff::1', '3fff:fff::1', '2001:2::1', '2001:10::1', '2001:2f::1', '5f00::1']),
  ])('%s is refused as %s', (address, reason) => {
    expect(forbiddenAddress(address)).toBe(reason);
  });

  it.each(['2001:4860:4860::8888', '2606:4700:4700::1111', '4000::1'])('%s is allowed', (address) => {
    expect(forbiddenAddress(address)).toBeUndefined();
  });
});
