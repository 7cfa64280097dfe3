/**
 * The sliced compile of a big model (what the hub runs for genesis, MODEL commits and
 * replays): the same model or the same error as the one-go compile, the event loop served
 * between its slices, and a big text parsed once (modelParseMemo) whichever check asks first.
 */
import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { assertContractError, assertContractErrorAsync } from "./assertContractError.js";
import { compileGoverningModel, compileGoverningModelSliced } from "./compileGoverningModel.js";
import { DEFAULT_LIMITS } from "./limits.js";
import { MEMO_MIN_CHARS, parseModelMemo, parseModelSliced } from "./modelParseMemo.js";
import { checkModalityText } from "./pathTypes.js";

/** A cycle of `n` states in two parts, with labels, plus one unreachable and one terminal state. */
function bigModel(n: number, tail = ""): string {
  const lines = ["model Big {", "  initial s0"];
  for (let i = 0; i < n; i++) lines.push(`  s${i} -> s${(i + 1) % n} [+A${i % 7}${i % 3 === 0 ? " -B" : ""}]`);
  lines.push("  lost -> s0", "  s1 -> end", "  part P {", "    p0 -> p1 [+C]", "    p1 -> p0", "  }", tail, "}");
  return lines.join("\n");
}

describe("compileGoverningModelSliced", () => {
  it("gives the model the one-go compile gives, pausing many times", async () => {
    const text = bigModel(20_000);
    let ticks = 0;
    const sliced = await compileGoverningModelSliced(text, DEFAULT_LIMITS, () => {
      ticks++;
    });
    const whole = compileGoverningModel(text, DEFAULT_LIMITS);
    assert.ok(ticks >= 100, `only ${ticks} pauses for 20,000 transitions`);
    assert.equal(sliced.text, whole.text);
    const { propIds: a, statesByName: b, ...slicedRest } = sliced.lts;
    const { propIds: c, statesByName: d, ...wholeRest } = whole.lts;
    assert.deepEqual(slicedRest, wholeRest);
    assert.deepEqual([...a], [...c]);
    assert.deepEqual([...b], [...d]);
    assert.deepEqual(
      sliced.lts.warnings.map((w) => `${w.code}:${w.state}`),
      ["UNREACHABLE_STATE:20000", "TERMINAL_STATE:20001"],
    );
  });

  it("lets the event loop run other work between its slices", async () => {
    let ranDuring = 0;
    let compiling = true;
    const other = async () => {
      while (compiling) {
        ranDuring++;
        await new Promise((r) => setImmediate(r));
      }
    };
    const otherDone = other();
    await compileGoverningModelSliced(
      bigModel(20_000, "  // other work"),
      DEFAULT_LIMITS,
      () => new Promise<void>((r) => setImmediate(r)),
    );
    compiling = false;
    await otherDone;
    assert.ok(ranDuring >= 50, `other work ran only ${ranDuring} times during the compile`);
  });

  it("refuses what the one-go compile refuses, with the same code, reason and position", async () => {
    const tick = () => undefined;
    const broken = bigModel(3000, "  s5 -> -> s6");
    const one = assertContractError(() => compileGoverningModel(broken), "VALIDATION_FAILED", "model_invalid");
    const two = await assertContractErrorAsync(
      () => compileGoverningModelSliced(broken, DEFAULT_LIMITS, tick),
      "VALIDATION_FAILED",
      "model_invalid",
    );
    assert.deepEqual(two, one);
    assert.equal(one.line, 3009);
    const relative = bigModel(3000, '  s5 -> s6 [+signed_by("users/x.id")]');
    await assertContractErrorAsync(
      () => compileGoverningModelSliced(relative, DEFAULT_LIMITS, tick),
      "VALIDATION_FAILED",
      "model_invalid",
    );
    const limits = { ...DEFAULT_LIMITS, modelStates: 1000 };
    const over = await assertContractErrorAsync(
      () => compileGoverningModelSliced(bigModel(3000), limits, tick),
      "PAYLOAD_TOO_LARGE",
      "limit_exceeded",
    );
    assert.equal(over.actual, 3004);
  });

  it("stops when its tick throws (a consumer that went away)", async () => {
    let ticks = 0;
    await assert.rejects(
      compileGoverningModelSliced(bigModel(20_000, "  // stopped"), DEFAULT_LIMITS, () => {
        if (++ticks === 3) throw new Error("gone");
      }),
      /gone/,
    );
    assert.equal(ticks, 3);
  });
});

describe("modelParseMemo", () => {
  it("a big text parsed in slices is remembered: the syntax check and the compile find it parsed", async () => {
    const text = bigModel(5000, "  // memo ok");
    assert.ok(text.length >= MEMO_MIN_CHARS);
    let ticks = 0;
    await parseModelSliced(text, () => {
      ticks++;
    });
    assert.ok(ticks >= 5);
    const decl = parseModelMemo(text);
    // The same parse, not a new one: an equal text (another string object) finds it too.
    assert.equal(parseModelMemo(`${text.slice(0, -1)}}`), decl);
    checkModalityText("/model/default.modality", text, "model");
    let compileTicks = 0;
    await compileGoverningModelSliced(text, DEFAULT_LIMITS, () => {
      compileTicks++;
    });
    const full = bigModel(5000, "  // memo ok, compiled without the memo");
    let fullTicks = 0;
    await compileGoverningModelSliced(full, DEFAULT_LIMITS, () => {
      fullTicks++;
    });
    assert.ok(compileTicks < fullTicks, `${compileTicks} pauses with the parse remembered, ${fullTicks} without`);
  });

  it("a big text that does not parse is remembered with its error: every check refuses it at the same place", async () => {
    const text = bigModel(5000, "  s1 -> [+A]");
    await parseModelSliced(text, () => undefined);
    const details = assertContractError(
      () => checkModalityText("/model/default.modality", text, "model"),
      "VALIDATION_FAILED",
      "modality_parse",
    );
    assert.equal(details.line, 5009);
    assertContractError(() => compileGoverningModel(text), "VALIDATION_FAILED", "model_invalid");
  });

  it("small texts are parsed each time, not remembered", () => {
    const text = "model M { a -> b\n b -> a }";
    assert.notEqual(parseModelMemo(text), parseModelMemo(text));
  });
});
