import assert from "node:assert/strict";
import { test } from "node:test";
import { clientAddressKey } from "./clientAddressKey.js";

test("an IPv4 address is its own key", () => {
  for (const a of ["127.0.0.1", "1.2.3.4", "255.255.255.255", "0.0.0.0"]) assert.equal(clientAddressKey(a), a);
  // Two addresses of one IPv4 /24 stay apart: only IPv6 is counted by network.
  assert.notEqual(clientAddressKey("198.51.100.1"), clientAddressKey("198.51.100.2"));
});

test("an IPv4-mapped IPv6 address is the IPv4 address it maps, in every spelling", () => {
  for (const a of [
    "::ffff:1.2.3.4",
    "::FFFF:1.2.3.4",
    "0:0:0:0:0:ffff:1.2.3.4",
    "0000:0000:0000:0000:0000:ffff:0102:0304",
    "::ffff:102:304",
  ]) {
    assert.equal(clientAddressKey(a), "1.2.3.4", a);
  }
  assert.equal(clientAddressKey("::ffff:127.0.0.1"), "127.0.0.1");
  assert.equal(clientAddressKey("::ffff:255.254.0.9"), "255.254.0.9");
});

test("another IPv6 address counts as its /64, however it is spelled", () => {
  const spellings = [
    "2001:db8:1:2::1",
    "2001:DB8:1:2::1",
    "2001:0db8:0001:0002:0000:0000:0000:0001",
    "2001:db8:1:2:0:0:0:1",
    "2001:db8:1:2:ffff:ffff:ffff:ffff",
    "2001:db8:1:2:abcd::9",
    "2001:db8:1:2::",
    "2001:db8:1:2::1.2.3.4",
  ];
  for (const a of spellings) assert.equal(clientAddressKey(a), "2001:db8:1:2::/64", a);
  // The neighbouring /64s are other keys.
  assert.equal(clientAddressKey("2001:db8:1:3::1"), "2001:db8:1:3::/64");
  assert.equal(clientAddressKey("2001:db8:1:1:ffff:ffff:ffff:ffff"), "2001:db8:1:1::/64");
  // Zero groups inside the prefix are kept; only trailing ones are compressed.
  assert.equal(clientAddressKey("2001:0:0:1::5"), "2001:0:0:1::/64");
  assert.equal(clientAddressKey("2001:db8::7"), "2001:db8::/64");
  assert.equal(clientAddressKey("2001:db8:0:0:1::"), "2001:db8::/64");
  assert.equal(clientAddressKey("fd00::2"), "fd00::/64");
});

test("loopback ::1 and the unspecified address are the network ::/64, apart from any IPv4 address", () => {
  assert.equal(clientAddressKey("::1"), "::/64");
  assert.equal(clientAddressKey("0:0:0:0:0:0:0:1"), "::/64");
  assert.equal(clientAddressKey("::"), "::/64");
  assert.notEqual(clientAddressKey("::1"), clientAddressKey("::ffff:127.0.0.1"));
});

test("a zone id is dropped: link-local addresses count by their /64", () => {
  assert.equal(clientAddressKey("fe80::1%eth0"), "fe80::/64");
  assert.equal(clientAddressKey("fe80::2%2"), "fe80::/64");
  assert.equal(clientAddressKey("FE80:0:0:0:fc:ff:fe00:1%lo"), "fe80::/64");
});

test("what is no address keeps a key of its own", () => {
  assert.equal(clientAddressKey(undefined), "unknown");
  assert.equal(clientAddressKey(""), "unknown");
  assert.equal(clientAddressKey("unknown"), "unknown");
  assert.equal(clientAddressKey("not an address"), "not an address");
  assert.equal(clientAddressKey("2001:db8::1::2"), "2001:db8::1::2");
  assert.equal(clientAddressKey("1.2.3.256"), "1.2.3.256");
});
