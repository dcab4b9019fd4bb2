import { forbiddenAddressReason, mappedIpv4 } from './destination-address';

describe('forbiddenAddressReason', () => {
  it.each([
    ['IPv4 loopback', '127.0.0.1'],
    ['another loopback address', '127.12.0.9'],
    ['the unspecified IPv4 address', '0.0.0.0'],
    ['10/8', '10.1.2.3'],
    ['172.16/12', '172.31.255.254'],
    ['192.168/16', '192.168.0.10'],
    ['CGNAT 100.64/10', '100.100.0.1'],
    ['link-local (cloud metadata)', '169.254.169.254'],
    ['multicast', '239.1.2.3'],
    ['broadcast', '255.255.255.255'],
    ['IPv6 loopback', '::1'],
    ['the unspecified IPv6 address', '::'],
    ['IPv6 unique local', 'fd00::1'],
    ['IPv6 link-local', 'fe80::1'],
    ['IPv6 multicast', 'ff02::1'],
    ['IPv4-mapped loopback, dotted', '::ffff:127.0.0.1'],
    ['IPv4-mapped loopback, hex', '::ffff:7f00:1'],
    ['IPv4-mapped private address', '::ffff:10.0.0.1'],
    ['NAT64 of a private address', '64:ff9b::a00:1'],
  ])('refuses %s (%s)', (_case, address) => {
    expect(forbiddenAddressReason(address)).toMatch(/loopback, private, link-local or reserved/);
  });

  it.each([
    ['a public IPv4 address', '93.184.215.14'],
    ['172.32.0.1, just past 172.16/12', '172.32.0.1'],
    ['100.128.0.1, just past CGNAT', '100.128.0.1'],
    ['a public IPv6 address', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
    ['an IPv4-mapped public address', '::ffff:93.184.215.14'],
  ])('accepts %s (%s)', (_case, address) => {
    expect(forbiddenAddressReason(address)).toBeNull();
  });

  it('says a host name is not an address (names are resolved first)', () => {
    expect(forbiddenAddressReason('localhost')).toBe('is not an IP address');
  });
});

describe('mappedIpv4', () => {
  it('reads the IPv4 address out of mapped forms and nothing out of other IPv6 addresses', () => {
    expect(mappedIpv4('::ffff:192.168.1.1')).toBe('192.168.1.1');
    expect(mappedIpv4('::FFFF:C0A8:0101')).toBe('192.168.1.1');
    expect(mappedIpv4('0:0:0:0:0:ffff:7f00:0001')).toBe('127.0.0.1');
    expect(mappedIpv4('2001:db8::1')).toBeNull();
    expect(mappedIpv4('::1')).toBeNull();
    expect(mappedIpv4('127.0.0.1')).toBeNull();
  });
});
