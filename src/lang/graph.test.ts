import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { labelText, propertyText, toDot, toMermaid } from "./graph.js";
import { compileModel } from "./Lts.js";
import { parseModel } from "./parser.js";

const lts = compileModel(
  parseModel(
    'model G { part p { a -> b [+GO -signed_by(/users/x.id)]\n b -> a } part q { a -> a [+post_to(/s.text, "say \\"hi\\"")] } }',
  ),
);

describe("graph export", () => {
  test("property and label text", () => {
    assert.equal(propertyText({ sign: "-", name: "threshold", args: ["2", "/keys"] }), "-threshold(2, /keys)");
    assert.equal(propertyText({ sign: "+", name: "post_to", args: ["/s.text", "a b"] }), '+post_to(/s.text, "a b")');
    assert.equal(labelText([]), "");
  });
  test("DOT: one cluster per part, initial states bold, highlighted states filled", () => {
    const dot = toDot(lts, { highlight: [1] });
    assert.equal(dot.match(/subgraph "cluster_/g)?.length, 2);
    assert.match(dot, /s0 \[label="a", penwidth=2\]/);
    assert.match(dot, /s1 \[label="b", style=filled/);
    assert.match(dot, /s0 -> s1 \[label="\+GO -signed_by\(\/users\/x\.id\)"\]/);
    assert.match(dot, /s1 -> s0;/);
  });
  test("Mermaid: qualified names for several parts, entry arrows, highlight class, escaped quotes", () => {
    const mermaid = toMermaid(lts, { highlight: [2] });
    assert.match(mermaid, /state "p:a" as s0/);
    assert.match(mermaid, /\[\*\] --> s0\n {2}\[\*\] --> s2/);
    assert.match(mermaid, /class s2 current/);
    assert.ok(!/s2 --> s2 : .*"/.test(mermaid), "no raw quotes in Mermaid labels");
  });
});
