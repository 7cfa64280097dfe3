import assert from "node:assert/strict";
import { test } from "node:test";
import { assertContractErrorAsync } from "../contract/assertContractError.js";
import { generateKeyPair } from "../contract/keys.js";
import { AccessRegistry } from "./AccessRegistry.js";
import { Authenticator } from "./Authenticator.js";
import { MemoryAuthStore } from "./MemoryAuthStore.js";
import { requestSigningText } from "./signingText.js";
import { registrationBody, revocationBody, signRequest, socketAuthParams } from "./signRequest.js";

const NOW = 1_700_000_000_000;

async function setup() {
  const store = new MemoryAuthStore(() => NOW / 1000);
  const auth = new Authenticator({ store, now: () => NOW });
  const registry = new AccessRegistry({ store, nowSeconds: () => NOW / 1000 });
  const identity = generateKeyPair();
  const access = generateKeyPair();
  await registry.register(registrationBody(identity.seed, access.seed));
  const req = (headers: Record<string, string>, body = '{"a":1}', url = "/contracts?x=1") => ({
    method: "POST",
    url,
    headers,
    body: Buffer.from(body),
  });
  const sign = (extra: { timestamp?: number; nonce?: string } = {}, body = '{"a":1}', url = "/contracts?x=1") =>
    signRequest(access.seed, { method: "POST", url, body, timestamp: extra.timestamp ?? NOW, ...extra });
  return { store, auth, registry, identity, access, req, sign };
}

test("signing text is exactly the documented recipe", () => {
  assert.equal(requestSigningText("post", "/a?b=1", "12", "00ff", "e3b0"), "HUB1\nPOST\n/a?b=1\n12\n00ff\ne3b0");
});

test("a correctly signed request resolves the identity and access key", async () => {
  const s = await setup();
  const caller = await s.auth.authenticate(s.req(s.sign()));
  assert.equal(caller.identity, s.identity.publicKey.toString("hex"));
  assert.equal(caller.accessKey, s.access.publicKey.toString("hex"));
});

test("missing, malformed, expired, forged and replayed requests are UNAUTHORIZED with their reason", async () => {
  const s = await setup();
  const good = s.sign();
  const without = (name: string) => Object.fromEntries(Object.entries(good).filter(([k]) => k !== name));
  await assertContractErrorAsync(() => s.auth.authenticate(s.req({})), "UNAUTHORIZED", "missing_headers");
  await assertContractErrorAsync(
    () => s.auth.authenticate(s.req(without("x-hub-nonce"))),
    "UNAUTHORIZED",
    "missing_headers",
  );
  await assertContractErrorAsync(
    () => s.auth.authenticate(s.req({ ...good, "x-hub-key": good["x-hub-key"]!.toUpperCase() })),
    "UNAUTHORIZED",
    "bad_key",
  );
  await assertContractErrorAsync(
    () => s.auth.authenticate(s.req({ ...good, "x-hub-timestamp": "1e12" })),
    "UNAUTHORIZED",
    "bad_timestamp",
  );
  await assertContractErrorAsync(
    () => s.auth.authenticate(s.req(s.sign({ nonce: "abc" }))),
    "UNAUTHORIZED",
    "bad_nonce",
  );
  await assertContractErrorAsync(
    () => s.auth.authenticate(s.req({ ...good, "x-hub-signature": "zz" })),
    "UNAUTHORIZED",
    "bad_signature_format",
  );
  await assertContractErrorAsync(
    () => s.auth.authenticate(s.req(s.sign({ timestamp: NOW - 301_000 }))),
    "UNAUTHORIZED",
    "expired_timestamp",
  );
  await assertContractErrorAsync(
    () => s.auth.authenticate(s.req(s.sign({ timestamp: NOW + 301_000 }))),
    "UNAUTHORIZED",
    "expired_timestamp",
  );
  // The signature covers the body bytes and the query: changing either breaks it.
  await assertContractErrorAsync(
    () => s.auth.authenticate(s.req(s.sign(), '{"a":2}')),
    "UNAUTHORIZED",
    "bad_signature",
  );
  await assertContractErrorAsync(
    () => s.auth.authenticate(s.req(s.sign(), '{"a":1}', "/contracts?x=2")),
    "UNAUTHORIZED",
    "bad_signature",
  );
  const stranger = generateKeyPair();
  const foreign = signRequest(stranger.seed, {
    method: "POST",
    url: "/contracts?x=1",
    body: '{"a":1}',
    timestamp: NOW,
  });
  await assertContractErrorAsync(() => s.auth.authenticate(s.req(foreign)), "UNAUTHORIZED", "unknown_key");
  await s.auth.authenticate(s.req(good));
  await assertContractErrorAsync(() => s.auth.authenticate(s.req(good)), "UNAUTHORIZED", "replayed_nonce");
});

test("a forged request does not spend the nonce of a later genuine one", async () => {
  const s = await setup();
  const good = s.sign({ nonce: "0123456789abcdef" });
  await assertContractErrorAsync(
    () => s.auth.authenticate(s.req(good, '{"forged":1}')),
    "UNAUTHORIZED",
    "bad_signature",
  );
  assert.ok((await s.auth.authenticate(s.req(good))).identity);
});

test("a revoked key is refused; revoked keys cannot be registered again", async () => {
  const s = await setup();
  const key = s.access.publicKey.toString("hex");
  const caller = await s.auth.authenticate(s.req(s.sign()));
  let revokedKey = "";
  s.registry.onRevoke((k) => {
    revokedKey = k;
  });
  const out = await s.registry.revoke(caller, { access_key: key });
  assert.equal(out.access_key, key);
  assert.equal(revokedKey, key);
  await assertContractErrorAsync(() => s.auth.authenticate(s.req(s.sign())), "UNAUTHORIZED", "unknown_key");
  await assertContractErrorAsync(
    () => s.registry.register(registrationBody(s.identity.seed, s.access.seed)),
    "CONFLICT",
    "access_key_revoked",
  );
});

test("registration needs both signatures; a key belongs to one identity", async () => {
  const s = await setup();
  const other = generateKeyPair();
  const body = registrationBody(other.seed, s.access.seed);
  await assertContractErrorAsync(() => s.registry.register(body), "CONFLICT", "access_key_taken");
  const fresh = generateKeyPair();
  const good = registrationBody(other.seed, fresh.seed);
  await assertContractErrorAsync(
    () => s.registry.register({ ...good, access_signature: good.identity_signature }),
    "UNAUTHORIZED",
    "bad_access_signature",
  );
  await assertContractErrorAsync(
    () => s.registry.register({ ...good, identity_signature: good.access_signature }),
    "UNAUTHORIZED",
    "bad_identity_signature",
  );
  await assertContractErrorAsync(
    () => s.registry.register({ ...good, identity_pubkey: "ab" }),
    "INVALID_REQUEST",
    "hex_wrong_length",
  );
  const ok = await s.registry.register({ ...good, identity_pubkey: `ed25519:${good.identity_pubkey}` });
  assert.equal(ok.identity, `ed25519:${other.publicKey.toString("hex")}`);
  assert.equal(ok.access_key, fresh.publicKey.toString("hex"));
});

test("revocation with the identity signature needs no access key; another identity's key is NOT_FOUND", async () => {
  const s = await setup();
  const key = s.access.publicKey.toString("hex");
  const intruder = generateKeyPair();
  await assertContractErrorAsync(
    () => s.registry.revoke({ identity: null, accessKey: null }, revocationBody(intruder.seed, key)),
    "NOT_FOUND",
  );
  await assertContractErrorAsync(
    () => s.registry.revoke({ identity: null, accessKey: null }, { access_key: key }),
    "UNAUTHORIZED",
  );
  const out = await s.registry.revoke({ identity: null, accessKey: null }, revocationBody(s.identity.seed, key));
  assert.equal(out.revoked_at, NOW / 1000);
  const list = await s.registry.list({ identity: s.identity.publicKey.toString("hex"), accessKey: null });
  assert.equal(list.access_keys[0]?.revoked_at, NOW / 1000);
});

test("socket authentication verifies the challenge signature", async () => {
  const s = await setup();
  const params = socketAuthParams(s.access.seed, "c0ffee");
  const caller = await s.auth.authenticateSocket("c0ffee", params.key, params.signature);
  assert.equal(caller.identity, s.identity.publicKey.toString("hex"));
  await assertContractErrorAsync(
    () => s.auth.authenticateSocket("other", params.key, params.signature),
    "UNAUTHORIZED",
    "bad_signature",
  );
});

test("the worked example of docs/api.md verifies", async () => {
  const identitySeed = Buffer.alloc(32, 1);
  const accessSeed = Buffer.alloc(32, 2);
  const headers = signRequest(accessSeed, {
    method: "POST",
    url: "/contracts",
    body: '{"model":null,"rules":[]}',
    timestamp: 1_700_000_000_000,
    nonce: "00112233445566778899aabbccddeeff",
  });
  assert.equal(headers["x-hub-key"], "8139770ea87d175f56a35466c34c7ecccb8d8a91b4ee37a25df60f5b8fc9b394");
  assert.equal(
    headers["x-hub-signature"],
    "4e235b7f15ebb5c13e9f83d8abf736f10b3a945347d64eda06bbfb91a58d6cb7eee9088a26b440b1db3896567875ee1f5451f8d15fda95a21f3094e534fde500",
  );
  const reg = registrationBody(identitySeed, accessSeed);
  assert.equal(reg.identity_pubkey, "8a88e3dd7409f195fd52db2d3cba5d72ca6709bf1d94121bf3748801b40f6f5c");
  assert.equal(
    reg.access_signature,
    "58ccb820a74ea6c272c0e6950f2ed3f868daaffd98c92adc3dd549ebae38f979d8bc12b6f0144adde957dd32e429d4e85187b9a8f4655d20c8a2c0cf57c70700",
  );
  const store = new MemoryAuthStore(() => 1_700_000_000);
  await new AccessRegistry({ store }).register(reg);
  const caller = await new Authenticator({ store, now: () => 1_700_000_000_000 }).authenticate({
    method: "POST",
    url: "/contracts",
    headers,
    body: Buffer.from('{"model":null,"rules":[]}'),
  });
  assert.equal(caller.identity, reg.identity_pubkey);
});
