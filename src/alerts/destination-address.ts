import { BlockList, isIP } from 'node:net';

// Which addresses an alert destination may resolve to. Outbound requests are made by the server on a project's
// behalf, so anything that reaches the server's own network (loopback, private, link-local, CGNAT, multicast, the
// unspecified address, and their IPv6 forms) is refused unless the operator allows private destinations.

const FORBIDDEN = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network", the unspecified address
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata services
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64: embeds an IPv4 address
  ['2002::', 16], // 6to4: embeds an IPv4 address
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  FORBIDDEN.addSubnet(network, prefix, 'ipv6');
}

/** Why a literal IP address may not be a destination, or null when it may. */
export function forbiddenAddressReason(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return 'is not an IP address';
  const mapped = family === 6 ? mappedIpv4(address) : null;
  if (mapped !== null) return forbiddenAddressReason(mapped);
  return FORBIDDEN.check(address, family === 4 ? 'ipv4' : 'ipv6')
    ? `${address} is a loopback, private, link-local or reserved address`
    : null;
}

/** The IPv4 address of an IPv4-mapped (::ffff:a.b.c.d) or IPv4-compatible (::a.b.c.d) IPv6 address, else null. */
export function mappedIpv4(address: string): string | null {
  const groups = expandIpv6(address);
  if (groups === null) return null;
  const isMapped = groups.slice(0, 5).every((g) => g === 0) && (groups[5] === 0xffff || groups[5] === 0);
  if (!isMapped || (groups[5] === 0 && groups[6] === 0)) return null;
  return [groups[6] >> 8, groups[6] & 0xff, groups[7] >> 8, groups[7] & 0xff].join('.');
}

/** The eight 16-bit groups of an IPv6 address (a trailing dotted IPv4 part included), or null if it is not one. */
function expandIpv6(address: string): number[] | null {
  if (isIP(address) !== 6) return null;
  let text = address.toLowerCase().replace(/%.*$/, '');
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const octets = dotted[1].split('.').map(Number);
    text =
      text.slice(0, -dotted[1].length) + `${((octets[0] << 8) | octets[1]).toString(16)}:${((octets[2] << 8) | octets[3]).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const parse = (part: string | undefined) => (part ? part.split(':').map((g) => parseInt(g, 16)) : []);
  const first = parse(head);
  const last = parse(tail);
  const zeros = tail === undefined ? 0 : 8 - first.length - last.length;
  return [...first, ...new Array<number>(zeros).fill(0), ...last];
}
