import assert from "node:assert/strict";
import { describe, it } from "node:test";
import type { StateView, ValidAction } from "../contract/engine.js";
import { actionText, stateLine } from "./nextActions.js";

const action = (name: string, to: string, signers: string[] = []): ValidAction => ({
  action: name,
  required_signer: signers[0] ?? "",
  required_signers: signers,
  to,
  label: "",
});

const view = (current: string, actions: ValidAction[]): StateView => ({
  current_state: current,
  current_states: [current],
  valid_actions: actions,
  commit_count: 1,
  head: "0".repeat(64),
});

describe("next actions for people", () => {
  it("names each action with its signers, an unlabelled transition as (any), and none as -", () => {
    assert.equal(actionText(action("RELEASE", "released", ["/users/buyer.id"])), "RELEASE (signed by /users/buyer.id)");
    assert.equal(actionText(action("", "released")), "(any)");
    assert.equal(
      stateLine(view("deposited", [action("DELIVER", "delivered", ["/users/seller.id"]), action("", "deposited")])),
      "State deposited; next: DELIVER (signed by /users/seller.id), (any)",
    );
    assert.equal(stateLine(view("done", [])), "State done; next: -");
    assert.equal(stateLine(view("", [])), "State (no model); next: -");
  });
});
