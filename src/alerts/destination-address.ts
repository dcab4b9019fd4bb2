import { BlockList, isIP } from 'node:net';

// Which addresses an alert destination may resolve to. Outbound requests are made by the server on a project's behalf,
// so only public unicast addresses are allowed (unless the operator allows private destinations): every block of the
// IANA IPv4 and IPv6 Special-Purpose Address Registries (RFC 6890 and later, checked 2026-11), multicast, and for IPv6
// anything outside global unicast 2000::/3. IPv6 forms that carry an IPv4 address (mapped, translated, NAT64, 6to4,
// Teredo) are judged by the IPv4 address they lead to.

interface Block {
  label: string;
  network: string;
  prefix: number;
}

const IPV4_BLOCKS: Block[] = [
  { label: '"this network"', network: '0.0.0.0', prefix: 8 },
  { label: 'private-use', network: '10.0.0.0', prefix: 8 },
  { label: 'shared address space (carrier-grade NAT)', network: '100.64.0.0', prefix: 10 },
  { label: 'loopback', network: '127.0.0.0', prefix: 8 },
  { label: 'link-local (cloud metadata services)', network: '169.254.0.0', prefix: 16 },
  { label: 'private-use', network: '172.16.0.0', prefix: 12 },
  { label: 'IETF protocol assignments', network: '192.0.0.0', prefix: 24 },
  { label: 'documentation', network: '192.0.2.0', prefix: 24 },
  { label: 'AS112', network: '192.31.196.0', prefix: 24 },
  { label: 'AMT', network: '192.52.193.0', prefix: 24 },
  { label: '6to4 relay anycast', network: '192.88.99.0', prefix: 24 },
  { label: 'private-use', network: '192.168.0.0', prefix: 16 },
  { label: 'AS112 direct delegation', network: '192.175.48.0', prefix: 24 },
  { label: 'benchmarking', network: '198.18.0.0', prefix: 15 },
  { label: 'documentation', network: '198.51.100.0', prefix: 24 },
  { label: 'documentation', network: '203.0.113.0', prefix: 24 },
  { label: 'multicast', network: '224.0.0.0', prefix: 4 },
  { label: 'reserved or broadcast', network: '240.0.0.0', prefix: 4 },
];

const IPV6_BLOCKS: Block[] = [
  { label: 'unspecified', network: '::', prefix: 128 },
  { label: 'loopback', network: '::1', prefix: 128 },
  { label: 'local-use IPv4/IPv6 translation', network: '64:ff9b:1::', prefix: 48 },
  { label: 'discard-only', network: '100::', prefix: 64 },
  { label: 'dummy prefix', network: '100:0:0:1::', prefix: 64 },
  { label: 'IETF protocol assignments', network: '2001::', prefix: 23 },
  { label: 'documentation', network: '2001:db8::', prefix: 32 },
  { label: 'AS112 direct delegation', network: '2620:4f:8000::', prefix: 48 },
  { label: 'documentation', network: '3fff::', prefix: 20 },
  { label: 'segment routing (SRv6) SIDs', network: '5f00::', prefix: 16 },
  { label: 'unique local', network: 'fc00::', prefix: 7 },
  { label: 'link-local', network: 'fe80::', prefix: 10 },
  { label: 'site-local', network: 'fec0::', prefix: 10 },
  { label: 'multicast', network: 'ff00::', prefix: 8 },
];

const IPV4_CHECKS = IPV4_BLOCKS.map((block) => ({ block, list: blockListOf(block, 'ipv4') }));
const IPV6_CHECKS = IPV6_BLOCKS.map((block) => ({ block, list: blockListOf(block, 'ipv6') }));
const GLOBAL_UNICAST = blockListOf({ label: 'global unicast', network: '2000::', prefix: 3 }, 'ipv6');

function blockListOf(block: Block, family: 'ipv4' | 'ipv6'): BlockList {
  const list = new BlockList();
  list.addSubnet(block.network, block.prefix, family);
  return list;
}

/**
 * Why a literal IP address may not be a destination (which special-purpose block it is in), or null when it is a
 * public unicast address. Callers that resolved a name must not show this to the project: it would echo what the
 * server's DNS answered (see outbound-request.ts).
 */
export function nonPublicAddressReason(address: string): string | null {
  const family = isIP(address);
  if (family === 0) return 'is not an IP address';
  if (family === 4) return ipv4Reason(address);
  const embedded = embeddedIpv4(address);
  if (embedded) {
    const reasons = embedded.ipv4.map(ipv4Reason).filter((reason): reason is string => reason !== null);
    return reasons.length > 0 ? `${embedded.form} of an address that ${reasons[0]}` : null;
  }
  const match = IPV6_CHECKS.find(({ list }) => list.check(address, 'ipv6'));
  if (match) return describe(match.block);
  return GLOBAL_UNICAST.check(address, 'ipv6') ? null : 'is outside global unicast (2000::/3)';
}

function ipv4Reason(address: string): string | null {
  const match = IPV4_CHECKS.find(({ list }) => list.check(address, 'ipv4'));
  return match ? describe(match.block) : null;
}

function describe(block: Block): string {
  return `is ${block.label} (${block.network}/${block.prefix})`;
}

/**
 * The IPv4 addresses an IPv6 address leads to, and the form that carries them: IPv4-mapped ::ffff:0:0/96,
 * IPv4-translated ::ffff:0:0:0/96, IPv4-compatible ::/96 (deprecated), NAT64 64:ff9b::/96, 6to4 2002::/16, and Teredo
 * 2001::/32 (its server, and its client stored inverted). Null for any other address.
 */
export function embeddedIpv4(address: string): { form: string; ipv4: string[] } | null {
  const groups = expandIpv6(address);
  if (groups === null) return null;
  const isZero = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  const ipv4At = (high: number, low: number) => [high >> 8, high & 0xff, low >> 8, low & 0xff].join('.');
  const last = ipv4At(groups[6], groups[7]);
  if (isZero(0, 5) && groups[5] === 0xffff) return { form: 'is IPv4-mapped (::ffff:0:0/96)', ipv4: [last] };
  if (isZero(0, 4) && groups[4] === 0xffff && groups[5] === 0) return { form: 'is IPv4-translated (::ffff:0:0:0/96)', ipv4: [last] };
  // :: and ::1 are judged as themselves
  if (isZero(0, 6) && (groups[6] !== 0 || groups[7] > 1)) return { form: 'is IPv4-compatible (::/96, deprecated)', ipv4: [last] };
  if (groups[0] === 0x64 && groups[1] === 0xff9b && isZero(2, 6)) return { form: 'is NAT64 (64:ff9b::/96)', ipv4: [last] };
  if (groups[0] === 0x2002) return { form: 'is 6to4 (2002::/16)', ipv4: [ipv4At(groups[1], groups[2])] };
  if (groups[0] === 0x2001 && groups[1] === 0) {
    return { form: 'is Teredo (2001::/32)', ipv4: [ipv4At(groups[2], groups[3]), ipv4At(groups[6] ^ 0xffff, groups[7] ^ 0xffff)] };
  }
  return null;
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
