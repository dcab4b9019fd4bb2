import { embeddedIpv4, nonPublicAddressReason } from './destination-address';

describe('nonPublicAddressReason', () => {
  it.each([
    ['IPv4 loopback', '127.0.0.1'],
    ['another loopback address', '127.12.0.9'],
    ['the unspecified IPv4 address', '0.0.0.0'],
    ['"this network"', '0.1.2.3'],
    ['10/8', '10.1.2.3'],
    ['172.16/12', '172.31.255.254'],
    ['192.168/16', '192.168.0.10'],
    ['CGNAT 100.64/10', '100.100.0.1'],
    ['link-local (cloud metadata)', '169.254.169.254'],
    ['IETF protocol assignments', '192.0.0.170'],
    ['TEST-NET-1', '192.0.2.1'],
    ['AS112', '192.31.196.1'],
    ['AMT', '192.52.193.1'],
    ['6to4 relay anycast', '192.88.99.1'],
    ['AS112 direct delegation', '192.175.48.6'],
    ['benchmarking', '198.19.255.1'],
    ['TEST-NET-2', '198.51.100.7'],
    ['TEST-NET-3', '203.0.113.9'],
    ['multicast', '239.1.2.3'],
    ['reserved', '250.1.2.3'],
    ['broadcast', '255.255.255.255'],
    ['IPv6 loopback', '::1'],
    ['the unspecified IPv6 address', '::'],
    ['IPv6 unique local', 'fd00::1'],
    ['IPv6 link-local', 'fe80::1'],
    ['IPv6 link-local with a zone', 'fe80::1%eth0'],
    ['IPv6 site-local', 'fec0::1'],
    ['IPv6 multicast', 'ff02::1'],
    ['discard-only', '100::1'],
    ['local-use NAT64 64:ff9b:1::/48, even of a public IPv4', '64:ff9b:1::808:808'],
    ['IETF protocol assignments 2001::/23', '2001:2::1'],
    ['documentation 2001:db8::/32', '2001:db8::1'],
    ['documentation 3fff::/20', '3fff:1::1'],
    ['SRv6 SIDs', '5f00::1'],
    ['AS112-v6', '2620:4f:8000::1'],
    ['outside global unicast', '4000::1'],
    ['IPv4-mapped loopback, dotted', '::ffff:127.0.0.1'],
    ['IPv4-mapped loopback, hex', '::ffff:7f00:1'],
    ['IPv4-mapped private address', '::ffff:10.0.0.1'],
    ['IPv4-translated loopback (::ffff:0:0:0/96)', '::ffff:0:7f00:1'],
    ['IPv4-translated metadata address', '::ffff:0:169.254.169.254'],
    ['IPv4-compatible private address', '::10.0.0.1'],
    ['NAT64 of a private address', '64:ff9b::a00:1'],
    ['NAT64 of loopback, dotted', '64:ff9b::127.0.0.1'],
    ['6to4 of a private address', '2002:c0a8:0101::1'],
    ['6to4 of loopback', '2002:7f00:1::'],
    ['Teredo whose client is loopback', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
    ['Teredo whose client is private', '2001:0:4136:e378:8000:63bf:f5ff:fffe'],
    ['Teredo whose server is private', '2001:0:a00:1:8000:63bf:3fff:fdd2'],
  ])('refuses %s (%s)', (_case, address) => {
    expect(nonPublicAddressReason(address)).toMatch(/^is /);
  });

  it.each([
    ['a public IPv4 address', '93.184.215.14'],
    ['172.32.0.1, just past 172.16/12', '172.32.0.1'],
    ['100.128.0.1, just past CGNAT', '100.128.0.1'],
    ['198.20.0.1, just past benchmarking', '198.20.0.1'],
    ['a public IPv6 address', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    ['2001:200::1, just past 2001::/23', '2001:200::1'],
    ['an IPv4-mapped public address', '::ffff:93.184.215.14'],
    ['NAT64 of a public address', '64:ff9b::808:808'],
    ['6to4 of a public address', '2002:5db8:d70e::1'],
  ])('accepts %s (%s)', (_case, address) => {
    expect(nonPublicAddressReason(address)).toBeNull();
  });

  it('names the block, and for an embedded address the form and the block of what it leads to', () => {
    expect(nonPublicAddressReason('10.0.0.1')).toBe('is private-use (10.0.0.0/8)');
    expect(nonPublicAddressReason('::ffff:0:a00:1')).toBe(
      'is IPv4-translated (::ffff:0:0:0/96) of an address that is private-use (10.0.0.0/8)',
    );
  });

  it('says a host name is not an address (names are resolved first)', () => {
    expect(nonPublicAddressReason('localhost')).toBe('is not an IP address');
  });
});

describe('embeddedIpv4', () => {
  it('reads the IPv4 address out of every form that carries one, and nothing out of other addresses', () => {
    expect(embeddedIpv4('::ffff:192.168.1.1')?.ipv4).toEqual(['192.168.1.1']);
    expect(embeddedIpv4('::FFFF:C0A8:0101')?.ipv4).toEqual(['192.168.1.1']);
    expect(embeddedIpv4('0:0:0:0:0:ffff:7f00:0001')?.ipv4).toEqual(['127.0.0.1']);
    expect(embeddedIpv4('::ffff:0:c0a8:101')?.ipv4).toEqual(['192.168.1.1']);
    expect(embeddedIpv4('64:ff9b::c0a8:101')?.ipv4).toEqual(['192.168.1.1']);
    expect(embeddedIpv4('2002:c0a8:101::1')?.ipv4).toEqual(['192.168.1.1']);
    // RFC 4380's example: server 65.54.227.120, client 192.0.2.45 stored inverted
    expect(embeddedIpv4('2001:0:4136:e378:8000:63bf:3fff:fdd2')?.ipv4).toEqual(['65.54.227.120', '192.0.2.45']);
    expect(embeddedIpv4('2606:2800:21f:cb07::1')).toBeNull();
    expect(embeddedIpv4('::1')).toBeNull();
    expect(embeddedIpv4('::')).toBeNull();
    expect(embeddedIpv4('127.0.0.1')).toBeNull();
  });
});
