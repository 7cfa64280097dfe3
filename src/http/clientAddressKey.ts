import { isIPv4, isIPv6 } from "node:net";

/**
 * The key under which the hub's per-address limits count a client (docs/security.md, "How a
 * client address is counted"): the request rate of anonymous and failed requests, the work
 * budget of anonymous callers, anonymous WebSocket connections and new identities.
 *
 * - An IPv4 address is its own key.
 * - An IPv4-mapped IPv6 address (`::ffff:1.2.3.4`, how a dual-stack listener reports an IPv4
 *   client) is the IPv4 address it maps, so one client has one key on every listener.
 * - Any other IPv6 address counts as its /64 network, written `2001:db8:1:2::/64`: one
 *   subscriber, host or virtual machine is commonly given a whole /64, and keying by the full
 *   address would give it 2^64 allowances. The prefix is normalized (lower-case hex, no
 *   leading zeros, trailing zero groups compressed) and a zone id (`fe80::1%eth0`) dropped,
 *   so every spelling of one network gives one key.
 * - Anything else (no address: a socket already gone; a forwarded value that is no address)
 *   is returned as is, or "unknown" when empty, so it still has a bucket of its own.
 */
export function clientAddressKey(address: string | undefined): string {
  if (address === undefined || address === "") return "unknown";
  if (isIPv4(address)) return address;
  const zone = address.indexOf("%");
  const bare = zone === -1 ? address : address.slice(0, zone);
  if (!isIPv6(bare)) return address;
  const groups = ipv6Groups(bare);
  if (
    groups[0] === 0 &&
    groups[1] === 0 &&
    groups[2] === 0 &&
    groups[3] === 0 &&
    groups[4] === 0 &&
    groups[5] === 0xffff
  ) {
    const hi = groups[6]!;
    const lo = groups[7]!;
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  const prefix = groups.slice(0, 4);
  while (prefix.length > 0 && prefix[prefix.length - 1] === 0) prefix.pop();
  return `${prefix.map((g) => g.toString(16)).join(":")}::/64`;
}

/** The eight 16-bit groups of a valid IPv6 address (no zone), a dotted IPv4 tail included. */
function ipv6Groups(address: string): number[] {
  const parse = (part: string): number[] => {
    if (part === "") return [];
    const out: number[] = [];
    for (const piece of part.split(":")) {
      if (piece.includes(".")) {
        const [a, b, c, d] = piece.split(".").map(Number) as [number, number, number, number];
        out.push((a << 8) | b, (c << 8) | d);
      } else out.push(Number.parseInt(piece, 16));
    }
    return out;
  };
  const gap = address.indexOf("::");
  if (gap === -1) return parse(address);
  const head = parse(address.slice(0, gap));
  const tail = parse(address.slice(gap + 2));
  return [...head, ...new Array<number>(8 - head.length - tail.length).fill(0), ...tail];
}
