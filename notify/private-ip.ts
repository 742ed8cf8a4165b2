// Addresses notifications may not connect to unless INTEGRATIONS_ALLOW_PRIVATE_IPS (fact sheet §3):
// what Python's ipaddress calls private — loopback, RFC 1918, link-local, ULA, reserved — plus
// multicast and shared address space, which are never a public webhook either.
import { BlockList, isIP } from "node:net";

const PRIVATE_V4: [network: string, prefix: number][] = [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
];
// Everything outside 2000::/3 is reserved or private (::, ::1, v4-mapped, ULA, link-local, multicast),
// and inside it the IETF and documentation blocks
const PRIVATE_V6: [network: string, prefix: number][] = [
  ["::", 3],
  ["4000::", 2],
  ["8000::", 1],
  ["2001::", 23],
  ["2001:db8::", 32],
];

function blockList(family: "ipv4" | "ipv6", ranges: [network: string, prefix: number][]): BlockList {
  const list = new BlockList();
  for (const [network, prefix] of ranges) list.addSubnet(network, prefix, family);
  return list;
}
// Two lists: one BlockList holding ::/3 would also match every IPv4 address through its mapped form
const BLOCKED_V4 = blockList("ipv4", PRIVATE_V4); // read-only after construction
const BLOCKED_V6 = blockList("ipv6", PRIVATE_V6);

/** Returns true when `address` (an IP literal) is loopback, private, link-local, ULA or reserved; true for non-IPs too. */
export function isPrivateAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").replace(/%.*$/, ""); // brackets and IPv6 zone ids
  const family = isIP(bare);
  if (family === 0) return true; // not an address: refuse rather than guess
  return family === 4 ? BLOCKED_V4.check(bare, "ipv4") : BLOCKED_V6.check(bare, "ipv6");
}
