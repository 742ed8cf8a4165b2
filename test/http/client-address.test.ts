// The client's address the sign-in limits count: the socket's, or behind a trusted proxy the one it saw;
// an IPv6 client by its /64; TRUSTED_PROXIES entries checked.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { clientAddress, proxyEntryProblem, trustedProxiesOf } from "../../http/client-address.ts";
import { ConfigError, readSettings } from "../../app/config.ts";

const proxies = trustedProxiesOf(["10.0.0.1", "192.168.0.0/16", "fd00::/8"]);

test("without trusted proxies the socket's address counts and X-Forwarded-For is ignored", () => {
  assert.is(clientAddress("127.0.0.5", "203.0.113.9", null), "127.0.0.5");
  assert.is(clientAddress("::ffff:127.0.0.5", null, null), "127.0.0.5", "an IPv4-mapped socket address as IPv4");
});

test("from a trusted proxy, the rightmost hop that is not a trusted proxy counts", () => {
  assert.is(clientAddress("10.0.0.1", "203.0.113.9", proxies), "203.0.113.9");
  assert.is(
    clientAddress("10.0.0.1", "198.51.100.1, 203.0.113.9, 192.168.4.4", proxies),
    "203.0.113.9",
    "a client-written first hop is not believed",
  );
  assert.is(clientAddress("::ffff:10.0.0.1", " 203.0.113.9 ", proxies), "203.0.113.9");
  assert.is(clientAddress("10.0.0.1", "192.168.1.1, 192.168.1.2", proxies), "192.168.1.1", "every hop a proxy: the farthest");
  assert.is(clientAddress("10.0.0.1", null, proxies), "10.0.0.1", "no header: the proxy itself");
  assert.is(clientAddress("10.0.0.2", "203.0.113.9", proxies), "10.0.0.2", "not a trusted proxy: its header is not believed");
});

test("an IPv6 client is counted by its /64", () => {
  assert.is(clientAddress("2001:db8:1:2:3:4:5:6", null, null), "2001:db8:1:2::/64");
  assert.is(clientAddress("2001:db8:1:2::ffff", null, null), "2001:db8:1:2::/64");
  assert.is(clientAddress("2001:db8::1", null, null), "2001:db8:0:0::/64");
  assert.is(clientAddress("fd00::1", "[2001:0db8:0001:0002::9]", proxies), "2001:db8:1:2::/64", "from a proxy, bracketed, leading zeros");
});

test("TRUSTED_PROXIES takes addresses and CIDR ranges, and names a bad entry", () => {
  assert.is(proxyEntryProblem("10.0.0.0/8"), null);
  assert.is(proxyEntryProblem("::1"), null);
  assert.match(proxyEntryProblem("proxy.example") ?? "", /expected an IP address or a CIDR range/);
  assert.match(proxyEntryProblem("10.0.0.0/33") ?? "", /prefix length/);
  assert.equal(readSettings({ TRUSTED_PROXIES: " 127.0.0.1 , 10.0.0.0/8" }).trustedProxies, ["127.0.0.1", "10.0.0.0/8"]);
  assert.equal(readSettings({}).trustedProxies, []);
  assert.throws(
    () => readSettings({ TRUSTED_PROXIES: "127.0.0.1,nope" }),
    (error: unknown) => error instanceof ConfigError && /TRUSTED_PROXIES=nope/.test(error.message),
  );
});

test.run();
