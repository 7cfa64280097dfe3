/**
 * `init --model … --party …` warns of each `+signed_by` path that holds no key: whichever
 * party's commit posts a key there first decides who signs as that role (a buyer could make
 * itself the arbiter). The contract is still created; the warning goes to stderr, and into
 * the --json document as `warnings` with its stable code in `warning_codes`
 * (`signer_without_key`), one per path, in the same order.
 */
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { Actor, type HubProcess, startHubProcess, tempDir } from "./cli-support.js";

const MODEL = `model Dispute {
  initial open
  open -> paid [+PAY +signed_by(/users/buyer.id)]
  paid -> refunded [+REFUND +signed_by(/users/arbiter.id) -signed_by(/users/buyer.id)]
  refunded -> refunded []
}`;

let base: string;
let hub: HubProcess;
let buyer: Actor;

before(async () => {
  base = tempDir("unkeyed");
  hub = await startHubProcess(join(base, "data"));
  buyer = new Actor("buyer", base, hub.url);
  writeFileSync(join(base, "dispute.modality"), MODEL);
  await buyer.ok(["keygen", "--name", "buyer"]);
  await buyer.ok(["keygen", "--name", "arbiter"]);
  await buyer.ok(["register", "--key", "buyer"]);
});
after(async () => hub?.stop());

describe("init with a model whose signer has no key", () => {
  it("names the unkeyed path in --json warnings and on stderr, and still creates the contract", async () => {
    const model = join(base, "dispute.modality");
    const doc = await buyer.ok<{ contract_id: string; warnings?: string[]; warning_codes?: string[] }>(
      ["init", "one", "--model", model, "--party", "buyer=buyer", "--key", "buyer"],
      base,
    );
    assert.match(doc.contract_id, /^c_/);
    assert.deepEqual(doc.warning_codes, ["signer_without_key"]);
    assert.equal(doc.warnings?.length, 1);
    assert.ok(doc.warnings[0]!.includes("/users/arbiter.id"));
    const human = await buyer.run(["init", "two", "--model", model, "--party", "buyer=buyer", "--key", "buyer"], base);
    assert.equal(human.code, 0, human.stderr);
    assert.ok(human.stderr.includes("/users/arbiter.id"));
    assert.ok(!human.stdout.includes("/users/arbiter.id"));
  });

  it("gives one code per unkeyed path, in the order of the warnings", async () => {
    const doc = await buyer.ok<{ warnings?: string[]; warning_codes?: string[] }>(
      ["init", "four", "--model", join(base, "dispute.modality"), "--key", "buyer"],
      base,
    );
    assert.deepEqual(doc.warning_codes, ["signer_without_key", "signer_without_key"]);
    assert.equal(doc.warnings?.length, 2);
    assert.ok(doc.warnings[0]!.includes("/users/arbiter.id"));
    assert.ok(doc.warnings[1]!.includes("/users/buyer.id"));
  });

  it("gives no warnings once every signer has a key", async () => {
    const doc = await buyer.ok<{ warnings?: string[] }>(
      [
        "init",
        "three",
        "--model",
        join(base, "dispute.modality"),
        "--party",
        "buyer=buyer",
        "--party",
        "arbiter=arbiter",
        "--key",
        "buyer",
      ],
      base,
    );
    assert.deepEqual(["warnings" in doc, "warning_codes" in doc], [false, false]);
  });
});
