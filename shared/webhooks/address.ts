import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

/*
 * No private network is ever called (docs/api.md, Webhooks): an endpoint's URL is https, and its
 * host, and every address the host resolves to, is a public address. Checked when a set stores
 * the URL and again before each send, which then connects to the address it checked (send.ts):
 * a name that resolves elsewhere later (DNS rebinding) reaches no private address.
 */

/** What is never called: loopback, private, link-local, unique-local, metadata and other special ranges. */
const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this network"
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, with the cloud metadata address 169.254.169.254
  ['172.16.0.0', 12],
  ['192.0.0.0', 24], // IETF protocol assignments (includes 192.0.0.192, Oracle's metadata)
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and broadcast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  ['::', 128],
  ['::1', 128],
  ['100::', 64], // discard
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique-local, with AWS's metadata address fd00:ec2::254
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** The IPv4 address an IPv6 one carries (mapped ::ffff:a.b.c.d, or NAT64 64:ff9b::/96), if any. */
const embeddedIpv4 = (address: string): string | undefined => {
  const lower = address.toLowerCase();
  const dotted = /^(?:::ffff:|64:ff9b::)(\d+\.\d+\.\d+\.\d+)$/.exec(lower)?.[1];
  if (dotted) return dotted;
  const hex = /^(?:::ffff:|64:ff9b::)([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const high = Number.parseInt(hex[1] as string, 16);
  const low = Number.parseInt(hex[2] as string, 16);
  return `${high >> 8}.${high & 255}.${low >> 8}.${low & 255}`;
};

export const isLoopbackAddress = (address: string): boolean => {
  const v4 = isIP(address) === 6 ? embeddedIpv4(address) : address;
  return v4 !== undefined && isIP(v4) === 4 ? loopback.check(v4, 'ipv4') : loopback.check(address, 'ipv6');
};

/** Whether an address may be called: public, or loopback where loopback is allowed (the local twin). */
export const isAllowedAddress = (address: string, allowLoopback: boolean): boolean => {
  const family = isIP(address);
  if (family === 0) return false;
  if (allowLoopback && isLoopbackAddress(address)) return true;
  if (family === 4) return !blocked.check(address, 'ipv4');
  const v4 = embeddedIpv4(address);
  if (v4 !== undefined) return !blocked.check(v4, 'ipv4');
  return !blocked.check(address, 'ipv6');
};

export class AddressRefused extends Error {
  override readonly name = 'AddressRefused';
}

/** A URL's host as node:net names it: IPv6 literals without their brackets. */
export const hostOf = (url: URL): string => url.hostname.replace(/^\[(.*)\]$/, '$1');

/** Resolves a host name to every address. */
export type Resolver = (host: string) => Promise<{ address: string; family: number }[]>;
export const systemResolver: Resolver = (host) => lookup(host, { all: true, verbatim: true });

/**
 * The addresses to connect to for `url`: every one its host resolves to, each allowed, or an
 * AddressRefused saying why (never a secret: a URL holds none, set refuses user info).
 */
export const checkedAddresses = async (
  url: URL,
  { allowLoopback, resolve = systemResolver }: { allowLoopback: boolean; resolve?: Resolver },
): Promise<{ address: string; family: number }[]> => {
  const host = hostOf(url);
  let addresses: { address: string; family: number }[];
  try {
    // An IP literal is its own address: no resolver is asked about it.
    addresses = isIP(host) ? [{ address: host, family: isIP(host) }] : await resolve(host);
  } catch {
    throw new AddressRefused(`the host ${host} does not resolve`);
  }
  if (addresses.length === 0) throw new AddressRefused(`the host ${host} does not resolve`);
  const refused = addresses.find(({ address }) => !isAllowedAddress(address, allowLoopback));
  if (refused) {
    throw new AddressRefused(
      `the host ${host} ${refused.address === host ? 'is' : `resolves to ${refused.address}, which is`} a loopback, private, link-local, unique-local or metadata address`,
    );
  }
  return addresses;
};

/**
 * What a URL must be, before any resolution: https (http only to a loopback host where loopback
 * is allowed), no user info, a host. The reason it is refused, or undefined.
 */
export const urlProblem = (text: string, allowLoopback: boolean): string | undefined => {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'is not a URL';
  }
  if (url.username || url.password) return 'must not carry a user name or password';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol !== 'http:') return 'must be https';
  if (!allowLoopback) return 'must be https';
  const host = hostOf(url);
  if (host === 'localhost' || (isIP(host) !== 0 && isLoopbackAddress(host))) return undefined;
  return 'must be https (http only to a loopback host, locally)';
};
