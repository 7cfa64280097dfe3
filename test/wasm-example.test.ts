/**
 * The AssemblyScript example predicate end to end, as docs/predicates-wasm.md tells a user
 * to run it: build it with its script, try it with `predicate test`, deploy it from a
 * working copy with `predicate deploy`, and pay through a `contract-hub start` hub, every
 * step a real process. The working copy and the hub refuse an over-limit payment with the
 * same error and the same gas.
 */
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";
import { fileURLToPath } from "node:url";
import { KeyStore } from "../src/cli/KeyStore.js";
import { HubClient } from "../src/client/HubClient.js";
import { signedSubmitBody } from "../src/client/signedCommits.js";
import { Actor, cli, type HubProcess, startHubProcess, tempDir } from "./cli-support.js";

const EXAMPLE = fileURLToPath(new URL("../examples/predicates/spend-limit/", import.meta.url));

interface Result {
  valid: boolean;
  gas_used: number;
  errors: string[];
}
interface Failed {
  property: string;
  errors?: string[];
  gas_used?: number;
}

let base: string;
let wasmFile: string;
let hub: HubProcess;
let owner: Actor;

before(async () => {
  base = tempDir("wasm-example");
  const build = spawnSync(process.execPath, [join(EXAMPLE, "build.mjs"), join(base, "build")], { encoding: "utf8" });
  assert.equal(build.status, 0, build.stderr);
  wasmFile = build.stdout.trim();
  hub = await startHubProcess(join(base, "hub-data"));
  owner = new Actor("owner", base, hub.url);
});
after(async () => hub?.stop());

const failedOf = (details: Record<string, unknown> | undefined): Failed | undefined =>
  ((details?.candidates ?? []) as { failed: Failed[] }[])
    .flatMap((c) => c.failed)
    .find((f) => f.property.startsWith("+spend_limit"));

describe("the AssemblyScript spend_limit example", () => {
  it("`predicate test` prints {valid, gas_used, errors}, exit 0 when it holds and 1 when not", async () => {
    const commit = join(base, "commit.json");
    writeFileSync(commit, JSON.stringify({ data: [{ method: "post", path: "/payment/amount.json", value: 250 }] }));
    const run = (limit: string) =>
      cli(["predicate", "test", wasmFile, "--args", `["/payment/amount.json","${limit}"]`, "--commit", commit], {
        cwd: base,
        home: join(base, "home"),
      });
    const ok = await run("1000");
    assert.equal(ok.code, 0, ok.stderr);
    const yes = ok.json<Result>();
    assert.equal(yes.valid, true);
    assert.ok(yes.gas_used > 0);
    assert.deepEqual(yes.errors, []);
    const over = await run("100");
    assert.equal(over.code, 1);
    assert.deepEqual(over.json<Result>().errors, ["250 at /payment/amount.json is over the limit of 100"]);
    // The same input gives the same gas, every time.
    assert.equal((await run("1000")).json<Result>().gas_used, yes.gas_used);
  });

  it("deploys from a working copy, pays within the limit and is refused over it, locally and by the hub", async () => {
    await owner.ok(["keygen", "--name", "owner"]);
    await owner.ok(["register"]);
    await owner.ok(["init", ".", "--model", join(EXAMPLE, "model.modality"), "--party", "owner=owner"]);
    const deployed = await owner.ok<{ state: { current_state: string } }>([
      "predicate",
      "deploy",
      "spend_limit",
      wasmFile,
      "--action",
      "INSTALL",
    ]);
    assert.equal(deployed.state.current_state, "open");
    const paid = await owner.ok<{ state: { current_state: string } }>([
      "commit",
      "--post",
      "/payment/amount.json",
      "250",
      "--action",
      "PAY",
    ]);
    assert.equal(paid.state.current_state, "open");
    const pushed = await owner.ok<{ pushed: number }>(["push"]);
    assert.equal(pushed.pushed, 2);

    // Over the limit: the working copy refuses it, naming the predicate's error and gas.
    const local = await owner.run(["commit", "--post", "/payment/amount.json", "5000", "--action", "PAY", "--json"]);
    assert.equal(local.code, 1);
    const localDoc = local.json<{ code: string; details?: Record<string, unknown> }>();
    assert.equal(localDoc.code, "VALIDATION_FAILED");
    const localFailed = failedOf(localDoc.details);
    assert.deepEqual(localFailed?.errors, ["5000 at /payment/amount.json is over the limit of 1000"]);

    // The hub, asked directly, refuses it with the same error and gas.
    const status = await owner.ok<{ contract_id: string; head: string }>(["status"]);
    const rest = new HubClient({ url: hub.url, retries: 0 });
    const state = await rest.getState(status.contract_id);
    assert.equal(state.head, status.head);
    // The owner's key (identity and access key alike), as the working copy signed with it.
    const key = KeyStore.of({ CONTRACT_HUB_HOME: owner.home }).get("owner");
    const body = signedSubmitBody(
      status.contract_id,
      state.head,
      { method: "post", path: "/payment/amount.json", value: 5000, action_labels: ["PAY"] },
      [{ key: key.seed }],
    );
    let hubDetails: Record<string, unknown> | undefined;
    await rest
      .withKey(key.seed)
      .submitCommit(status.contract_id, body)
      .catch((e: { details?: Record<string, unknown> }) => {
        hubDetails = e.details;
      });
    const hubFailed = failedOf(hubDetails);
    assert.deepEqual(hubFailed?.errors, localFailed?.errors);
    assert.ok((hubFailed?.gas_used ?? 0) > 0);
    assert.equal(hubFailed?.gas_used, localFailed?.gas_used);
    const verify = await owner.run(["verify", "--json"]);
    assert.equal(verify.code, 0, verify.stdout);
  });
});
