// The addresses the browser refuses without browser.allowPrivateNetwork: the special-purpose ranges, and IPv6 forms
// that carry a private IPv4 address inside (mapped, IPv4-compatible, NAT64, 6to4).
import { describe, expect, it } from 'vitest';
import { embeddedIpv4, isPrivateAddress } from '../../src/browser/index.js';

describe('private addresses', () => {
  it.each([
    ['192.0.0.8', 'IETF protocol assignments 192.0.0.0/24'],
    ['192.0.2.10', 'documentation 192.0.2.0/24'],
    ['192.88.99.1', '6to4 relay anycast 192.88.99.0/24'],
    ['198.18.0.1', 'benchmarking 198.18.0.0/15'],
    ['198.19.255.254', 'benchmarking 198.18.0.0/15, upper half'],
    ['198.51.100.7', 'documentation 198.51.100.0/24'],
    ['203.0.113.99', 'documentation 203.0.113.0/24'],
    ['::ffff:127.0.0.1', 'IPv4-mapped loopback'],
    ['::ffff:7f00:1', 'IPv4-mapped loopback in hex'],
    ['::ffff:169.254.169.254', 'IPv4-mapped metadata address'],
    ['::127.0.0.1', 'IPv4-compatible loopback'],
    ['::8.8.8.8', 'IPv4-compatible, deprecated whatever it carries'],
    ['::ffff:0:10.0.0.1', 'IPv4-translated (SIIT)'],
    ['64:ff9b::7f00:1', 'NAT64 of loopback'],
    ['64:ff9b::10.1.2.3', 'NAT64 of a private address'],
    ['64:ff9b::a9fe:a9fe', 'NAT64 of the metadata address'],
    ['64:ff9b:1::808:808', 'local-use NAT64 64:ff9b:1::/48'],
    ['2002:7f00:1::', '6to4 of loopback'],
    ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
    ['2002:a00:1:1::5', '6to4 of 10.0.0.1'],
    ['fec0::1', 'site-local fec0::/10'],
    ['feff::1', 'site-local fec0::/10, upper end'],
    ['100::1', 'discard-only 100::/64'],
    ['2001:db8::1', 'documentation 2001:db8::/32'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo 2001::/32'],
    ['3fff::1', 'documentation 3fff::/20'],
    ['fe80::1%eth0', 'link-local with a zone id'],
    ['not-an-address', 'anything that is not an IP address'],
  ])('refuses %s (%s)', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '8.8.8.8',
    '93.184.216.34',
    '192.0.3.1',
    '198.17.255.255',
    '198.20.0.1',
    '198.51.101.1',
    '203.0.114.1',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
    '2606:4700::1111',
    '2001:4860:4860::8888',
  ])('allows the public address %s', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });

  it('reads the IPv4 address inside mapped, NAT64 and 6to4 addresses, in any spelling', () => {
    expect(embeddedIpv4('::ffff:127.0.0.1')).toBe('127.0.0.1');
    expect(embeddedIpv4('0:0:0:0:0:FFFF:7F00:0001')).toBe('127.0.0.1');
    expect(embeddedIpv4('64:ff9b::7f00:1')).toBe('127.0.0.1');
    expect(embeddedIpv4('64:ff9b::192.168.0.1')).toBe('192.168.0.1');
    expect(embeddedIpv4('2002:7f00:1::')).toBe('127.0.0.1');
    expect(embeddedIpv4('2002:0a00:0001:ffff::1')).toBe('10.0.0.1');
    expect(embeddedIpv4('2606:4700::1111')).toBeUndefined();
    expect(embeddedIpv4('64:ff9b:0:1::7f00:1')).toBeUndefined();
  });
});
