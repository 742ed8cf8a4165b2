// Which client a request comes from, for the sign-in limits: the socket's address, or behind a reverse proxy
// named in TRUSTED_PROXIES the address that proxy saw (the rightmost X-Forwarded-For entry that is not itself
// a trusted proxy). A header from anywhere else is the client's own text and is not believed. An IPv6 client
// is counted by its /64, which one machine usually holds whole.
import { BlockList, isIP } from "node:net";
import type { H3Event } from "h3";

/** Returns the reason `entry` is not an address or a CIDR range (TRUSTED_PROXIES), or null when it is one. */
export function proxyEntryProblem(entry: string): string | null {
  const [address, bits, extra] = entry.split("/");
  const family = isIP(address);
  if (family === 0 || extra !== undefined) return `${entry}: expected an IP address or a CIDR range (10.0.0.0/8, fd00::/8)`;
  if (bits !== undefined && !(/^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128)))
    return `${entry}: the prefix length is out of range`;
  return null;
}

/** The trusted proxies as a list to check addresses against (entries already checked by proxyEntryProblem); null when none. */
export function trustedProxiesOf(entries: readonly string[]): BlockList | null {
  if (entries.length === 0) return null;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split("/");
    const type = isIP(address) === 6 ? "ipv6" : "ipv4";
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return list;
}

/** The client address of a request as the limits count it, behind the proxies TRUSTED_PROXIES names (`entries`). */
export function clientAddressOfRequests(entries: readonly string[]): (event: H3Event) => string {
  const trusted = trustedProxiesOf(entries);
  return (event) =>
    clientAddress(event.runtime?.node?.req.socket?.remoteAddress ?? event.req.ip, event.req.headers.get("x-forwarded-for"), trusted);
}

/** The client's address as the limits count it: see the file's opening comment. */
export function clientAddress(socketAddress: string | undefined, forwardedFor: string | null, trusted: BlockList | null): string {
  let address = plain(socketAddress ?? "");
  if (trusted !== null && forwardedFor !== null && isTrusted(trusted, address)) {
    const hops = forwardedFor
      .split(",")
      .map((hop) => plain(hop.trim()))
      .filter((hop) => hop !== "");
    while (hops.length > 0) {
      address = hops.pop() ?? address;
      if (!isTrusted(trusted, address)) break;
    }
  }
  return countedAs(address.slice(0, 64));
}

function isTrusted(trusted: BlockList, address: string): boolean {
  const family = isIP(address);
  return family !== 0 && trusted.check(address, family === 6 ? "ipv6" : "ipv4");
}

/** An IPv4-mapped IPv6 address as IPv4; a bracketed or zoned IPv6 address bare. */
function plain(address: string): string {
  const bare = address.replace(/^\[|\](:\d+)?$/g, "").replace(/%.*$/, "");
  return /^::ffff:\d+\.\d+\.\d+\.\d+$/i.test(bare) ? bare.slice(7) : bare;
}

/** IPv6 by its /64 ("2001:db8:0:1::/64"); anything else as it is. */
function countedAs(address: string): string {
  if (isIP(address) !== 6) return address;
  const [head, tail = ""] = address.toLowerCase().split("::");
  const left = head === "" ? [] : head.split(":"),
    right = tail === "" ? [] : tail.split(":");
  const groups = address.includes("::") ? [...left, ...Array<string>(8 - left.length - right.length).fill("0"), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((group) => group.replace(/^0+(?=.)/, ""))
    .join(":")}::/64`;
}
