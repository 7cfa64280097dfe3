// A custom predicate for contract-hub, in AssemblyScript.
//
//   spend_limit(path, max) holds when the commit posts at `path` an integer amount
//   from 0 to `max`, e.g. ready -> ready [+PAY +spend_limit(/payment/amount.json, 1000)].
//
// Deploy the compiled module at /_code/custom/spend_limit.wasm. Build: node build.mjs.
//
// The hub calls alloc(len), writes the input JSON there and calls evaluate(ptr, len):
//   {"args":["/payment/amount.json","1000"],"contract_id":"…",
//    "commit":{"hash":"…","parent":"…","data":[{"method":"post","path":"…","value":250},…],
//              "labels":[…],"signers":[…],"timestamp":…},"state":{…}}
// evaluate returns a pointer to a little-endian u32 length and that many bytes of UTF-8
// JSON: {"valid":true} or {"valid":false,"errors":["…"]}.
//
// Integers only: the hub refuses modules with floating-point instructions, so this file
// never uses f64 (no Date, no Math, no parseFloat).

export function alloc(len: i32): i32 {
  return <i32>heap.alloc(<usize>len);
}

export function evaluate(ptr: i32, len: i32): i32 {
  const input = new Input(<usize>ptr, <usize>len);
  const args = input.args();
  if (args.length != 2) return answer(false, `spend_limit takes 2 arguments, got ${args.length}`);
  const path = args[0];
  const max = parseAmount(args[1]);
  if (max < 0) return answer(false, `spend_limit: the limit ${args[1]} is not a non-negative integer`);
  const amount = input.postedAt(path);
  if (amount == NOTHING) return answer(false, `the commit posts no amount at ${path}`);
  if (amount < 0) return answer(false, `the amount posted at ${path} is not a non-negative integer`);
  if (amount > max) return answer(false, `${amount} at ${path} is over the limit of ${max}`);
  return answer(true, "");
}

/** postedAt's answer when the commit posts nothing at the path. */
const NOTHING: i64 = -2;

/** "1000" → 1000; anything that is not a non-negative integer below 10^15 → -1. */
function parseAmount(s: string): i64 {
  if (s.length == 0 || s.length > 15) return -1;
  let n: i64 = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return -1;
    n = n * 10 + <i64>(c - 48);
  }
  return n;
}

/** Writes the result document and returns its address. */
function answer(valid: bool, error: string): i32 {
  const json = valid ? `{"valid":true}` : `{"valid":false,"errors":["${escapeJson(error)}"]}`;
  const bytes = String.UTF8.encode(json);
  const n = bytes.byteLength;
  const out = heap.alloc(4 + <usize>n);
  store<u32>(out, <u32>n);
  memory.copy(out + 4, changetype<usize>(bytes), <usize>n);
  return <i32>out;
}

function escapeJson(s: string): string {
  return s.replaceAll("\\", "\\\\").replaceAll('"', '\\"');
}

/**
 * Just enough of a JSON reader for the input: it walks the top-level object and skips
 * every value it does not need, so a key named "timestamp" inside posted data cannot be
 * mistaken for the commit's.
 */
class Input {
  pos: usize;
  constructor(
    public ptr: usize,
    public len: usize,
  ) {
    this.pos = 0;
  }

  /** The "args" array, each argument as a string (the hub passes strings). */
  args(): string[] {
    const out: string[] = [];
    if (!this.seekTopLevel("args") || this.peek() != 0x5b) return out;
    this.pos++;
    while (this.pos < this.len) {
      this.skipSpace();
      const c = this.peek();
      if (c == 0x5d) break;
      if (c == 0x2c) {
        this.pos++;
        continue;
      }
      if (c == 0x22) out.push(this.readString());
      else this.skipValue();
    }
    return out;
  }

  /**
   * The value of the last `post` to `path` among commit.data: an integer amount, -1 when
   * the value is not one, NOTHING when no operation posts there.
   */
  postedAt(path: string): i64 {
    let found: i64 = NOTHING;
    if (!this.seekTopLevel("commit") || this.peek() != 0x7b) return found;
    this.pos++;
    if (!this.seekKey("data") || this.peek() != 0x5b) return found;
    this.pos++;
    while (this.pos < this.len) {
      this.skipSpace();
      const c = this.peek();
      if (c == 0x5d) break;
      if (c == 0x2c) {
        this.pos++;
        continue;
      }
      if (c != 0x7b) {
        this.skipValue();
        continue;
      }
      // One operation object: its keys come in sorted order (method, path, value).
      this.pos++;
      let method = "";
      let opPath = "";
      let value: i64 = -1;
      while (this.pos < this.len) {
        this.skipSpace();
        const d = this.peek();
        if (d == 0x7d) {
          this.pos++;
          break;
        }
        if (d == 0x2c) {
          this.pos++;
          continue;
        }
        const key = this.readString();
        this.skipSpace();
        this.pos++; // ':'
        this.skipSpace();
        if (key == "method" && this.peek() == 0x22) method = this.readString();
        else if (key == "path" && this.peek() == 0x22) opPath = this.readString();
        else if (key == "value") value = this.readAmount();
        else this.skipValue();
      }
      if (method == "post" && opPath == path) found = value;
    }
    return found;
  }

  /** Moves to the value of `name` in the object whose '{' is already consumed; false when absent. */
  private seekKey(name: string): bool {
    while (this.pos < this.len) {
      this.skipSpace();
      const c = this.peek();
      if (c == 0x7d) return false;
      if (c == 0x2c) {
        this.pos++;
        continue;
      }
      const key = this.readString();
      this.skipSpace();
      this.pos++; // ':'
      this.skipSpace();
      if (key == name) return true;
      this.skipValue();
    }
    return false;
  }

  /** A non-negative integer value at pos, else -1 (the value is skipped either way). */
  private readAmount(): i64 {
    const start = this.pos;
    const n = this.readInteger();
    const c = this.peek();
    if (n >= 0 && (c == 0x2c || c == 0x7d || c == 0x5d || c == 0x20)) return n;
    this.pos = start;
    this.skipValue();
    return -1;
  }

  /** Moves to the value of a key of the top-level object; false when absent. */
  private seekTopLevel(name: string): bool {
    this.pos = 1; // after '{'
    return this.seekKey(name);
  }

  private peek(): u8 {
    return this.pos < this.len ? load<u8>(this.ptr + this.pos) : 0;
  }

  private skipSpace(): void {
    while (this.pos < this.len) {
      const c = this.peek();
      if (c != 0x20 && c != 0x0a && c != 0x0d && c != 0x09) return;
      this.pos++;
    }
  }

  /** Reads a string at pos (escapes other than \" and \\ are kept as written). */
  private readString(): string {
    this.pos++; // opening quote
    const start = this.pos;
    while (this.pos < this.len) {
      const c = this.peek();
      if (c == 0x5c) this.pos += 2;
      else if (c == 0x22) break;
      else this.pos++;
    }
    const s = String.UTF8.decodeUnsafe(this.ptr + start, this.pos - start);
    this.pos++; // closing quote
    return s.replaceAll('\\"', '"').replaceAll("\\\\", "\\");
  }

  private readInteger(): i64 {
    let n: i64 = 0;
    let digits = 0;
    while (this.pos < this.len) {
      const c = this.peek();
      if (c < 0x30 || c > 0x39) break;
      if (digits == 15) return -1; // past any amount this predicate compares
      n = n * 10 + <i64>(c - 0x30);
      digits++;
      this.pos++;
    }
    return digits > 0 ? n : -1;
  }

  /** Skips one value: a string, an object or array (nested), or a literal or number. */
  private skipValue(): void {
    const c = this.peek();
    if (c == 0x22) {
      this.readString();
      return;
    }
    if (c == 0x7b || c == 0x5b) {
      let depth = 0;
      while (this.pos < this.len) {
        const d = this.peek();
        if (d == 0x22) {
          this.readString();
          continue;
        }
        if (d == 0x7b || d == 0x5b) depth++;
        else if (d == 0x7d || d == 0x5d) depth--;
        this.pos++;
        if (depth == 0) return;
      }
      return;
    }
    while (this.pos < this.len) {
      const d = this.peek();
      if (d == 0x2c || d == 0x7d || d == 0x5d) return;
      this.pos++;
    }
  }
}
