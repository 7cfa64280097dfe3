/**
 * The first pass of parseJsonInSlices: one scan over a JSON text that finds where it can be
 * cut into pieces JSON.parse handles in bounded time. JSON.parse is fast per byte but not per
 * value: 16 MiB of `[[[…]]],` or of one-character members takes it 1–2 s, in one call that
 * would hold the event loop. The scan records, for each container whose contents weigh more
 * than a piece may, how its children group into pieces: runs of whole children (each parsed
 * as `[…]` or `{…}` of their own) and the heavy children themselves (planned the same way).
 * Everything else stays inside some piece, parsed by JSON.parse and validated by it.
 *
 * The scan also does what countJsonMembers does for every body (the nesting limit, the
 * member count that reveals duplicates) and notes where the structure itself is broken (a
 * closer that does not match, an unterminated string, a container left open), so a broken
 * text is refused without parsing up to the break.
 */
import { ContractError } from "./ContractError.js";
import { closingQuote, tooDeep } from "./scanJsonText.js";

/** How much work one piece may hold. */
export interface PieceLimits {
  /** Structural tokens (brackets, commas, colons, strings) in a piece; past it the piece ends. */
  weight: number;
  /** Characters in a piece; past it the piece ends (long strings cost by their length). */
  chars: number;
}

/**
 * Pieces of at most about 10 ms of JSON.parse each on this kind of machine (32,768 nested
 * empty arrays; a megabyte of long strings takes a few ms). A piece costs more than the same
 * text parsed in place (JSON.parse of `[` + a slice + `]` ran about a third slower than of
 * the slice itself), so ordinary bodies should stay one piece: a push of 500 commits weighs
 * about 18,000 tokens.
 */
export const PIECE_LIMITS: PieceLimits = { weight: 32_768, chars: 1024 * 1024 };

/** A run of a heavy container's children: `from`..`to` (exclusive) is text between separators. */
export interface Piece {
  from: number;
  to: number;
  /** Set when the piece is one heavy child: its container, planned on its own. */
  node?: HeavyNode;
}

/** A container cut into pieces. `start` and `end` are the positions of its brackets. */
export interface HeavyNode {
  object: boolean;
  start: number;
  end: number;
  pieces: Piece[];
}

/** What the scan found. */
export interface JsonPlan {
  /** Member names in the whole text (colons outside strings). */
  members: number;
  /** The heavy container that is the text's top-level value, if it is one. */
  root: HeavyNode | null;
  /** True when some container is heavy (whether or not it is the top-level value). */
  anyHeavy: boolean;
  /** Position of the first non-whitespace character (the top-level value's start), -1 if none. */
  valueStart: number;
  /** Where the structure is broken, if it is: the text is refused without parsing it. */
  broken: ContractError | null;
}

interface Frame {
  object: boolean;
  start: number;
  /** Tokens inside so far, nested ones included. */
  weight: number;
  /** Where the current child's text begins (after `[`, `{` or a comma). */
  childFrom: number;
  /** The weight when the current child began. */
  childWeight: number;
  /** The current child, when it is a heavy container. */
  childNode: HeavyNode | null;
  /** The current piece: where it begins, how many children and how much weight it holds. */
  pieceFrom: number;
  pieceChildren: number;
  pieceWeight: number;
  /** Null until the container is cut for the first time. */
  pieces: Piece[] | null;
}

function syntax(message: string, position: number): ContractError {
  return new ContractError("INVALID_REQUEST", `Cannot parse JSON: ${message} at position ${position}`, {
    reason: "json_syntax",
    position,
  });
}

/**
 * A resumable scan: `run(until)` advances to `until` (or the end) so the caller can yield
 * between stretches; `finish()` gives the plan once `done`.
 */
export class JsonPlanner {
  #i = 0;
  #depth = 0;
  #members = 0;
  readonly #frames: Frame[] = [];
  #top = -1;
  #root: HeavyNode | null = null;
  #anyHeavy = false;
  #valueStart = -1;
  #broken: ContractError | null = null;

  #containers = 0;

  constructor(
    private readonly text: string,
    private readonly maxDepth: number,
    private readonly limits: PieceLimits = PIECE_LIMITS,
    private readonly maxContainers = Number.POSITIVE_INFINITY,
  ) {}

  get done(): boolean {
    return this.#i >= this.text.length;
  }

  /** Scans up to position `until`; throws `json_too_deep` as countJsonMembers would. */
  run(until: number): void {
    const text = this.text;
    const end = Math.min(until, text.length);
    let i = this.#i;
    for (; i < end; i++) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) continue;
      if (this.#valueStart < 0) this.#valueStart = i;
      if (c === 0x22) {
        const start = i;
        i = closingQuote(text, start);
        if (i < 0) {
          this.#break(syntax("unterminated string", start));
          this.#i = text.length;
          return;
        }
        this.#token();
      } else if (c === 0x3a) {
        this.#members++;
        this.#token();
      } else if (c === 0x2c) {
        this.#token();
        if (this.#broken === null && this.#top >= 0) this.#childEnds(this.#frames[this.#top]!, i);
      } else if (c === 0x7b || c === 0x5b) {
        if (++this.#depth > this.maxDepth) throw tooDeep(this.maxDepth, i);
        if (++this.#containers > this.maxContainers) throw tooManyContainers(this.maxContainers, i);
        this.#open(c === 0x7b, i);
      } else if (c === 0x7d || c === 0x5d) {
        this.#depth--;
        this.#close(c === 0x7d, i);
      }
    }
    this.#i = i;
  }

  finish(): JsonPlan {
    if (this.#broken === null && this.#top >= 0) {
      this.#broken = syntax("unexpected end of text inside a container opened", this.#frames[this.#top]!.start);
    }
    return {
      members: this.#members,
      root: this.#root,
      anyHeavy: this.#anyHeavy,
      valueStart: this.#valueStart,
      broken: this.#broken,
    };
  }

  #break(err: ContractError): void {
    this.#broken ??= err;
  }

  #token(): void {
    if (this.#top >= 0) this.#frames[this.#top]!.weight++;
  }

  #open(object: boolean, i: number): void {
    if (this.#broken !== null) return;
    this.#token();
    const index = ++this.#top;
    let f = this.#frames[index];
    if (f === undefined) {
      f = {} as Frame;
      this.#frames[index] = f;
    }
    f.object = object;
    f.start = i;
    f.weight = 0;
    f.childFrom = i + 1;
    f.childWeight = 0;
    f.childNode = null;
    f.pieceFrom = i + 1;
    f.pieceChildren = 0;
    f.pieceWeight = 0;
    f.pieces = null;
  }

  #close(object: boolean, i: number): void {
    if (this.#broken !== null) return;
    if (this.#top < 0) {
      this.#break(syntax("a closing bracket without its opening one", i));
      return;
    }
    const f = this.#frames[this.#top]!;
    if (f.object !== object) {
      this.#break(syntax("a closing bracket that does not match its opening one", i));
      return;
    }
    // The last child ends here. An empty one (`[]`, `[1,]`) matters only in a container that
    // is cut: its piece holds no text, which the parse refuses; elsewhere JSON.parse sees it.
    this.#childEnds(f, i);
    if (f.pieces !== null && f.pieceChildren > 0) f.pieces.push({ from: f.pieceFrom, to: i });
    this.#top--;
    const parent = this.#top >= 0 ? this.#frames[this.#top]! : null;
    if (parent !== null) parent.weight += f.weight + 1;
    if (f.pieces === null) return;
    const node: HeavyNode = { object: f.object, start: f.start, end: i, pieces: f.pieces };
    this.#anyHeavy = true;
    if (parent !== null) parent.childNode = node;
    else if (f.start === this.#valueStart) this.#root = node;
  }

  /** The current child of `f` ends at `at` (a comma or the closing bracket). */
  #childEnds(f: Frame, at: number): void {
    const weight = f.weight - f.childWeight;
    if (f.childNode !== null) {
      f.pieces ??= [];
      if (f.pieceChildren > 0) f.pieces.push({ from: f.pieceFrom, to: f.childFrom - 1 });
      f.pieces.push({ from: f.childFrom, to: at, node: f.childNode });
      f.pieceFrom = at + 1;
      f.pieceChildren = 0;
      f.pieceWeight = 0;
    } else {
      f.pieceChildren++;
      f.pieceWeight += weight;
      if (f.pieceWeight > this.limits.weight || at - f.pieceFrom > this.limits.chars) {
        f.pieces ??= [];
        f.pieces.push({ from: f.pieceFrom, to: at });
        f.pieceFrom = at + 1;
        f.pieceChildren = 0;
        f.pieceWeight = 0;
      }
    }
    f.childFrom = at + 1;
    f.childWeight = f.weight;
    f.childNode = null;
  }
}

/**
 * The refusal of a text with more arrays and objects than `limit`: rebuilt, 16 MiB of nested
 * empty arrays is 5.6 million of them, about 380 MB of heap whose garbage collection held the
 * event loop 200 ms at once; a push that fits every other limit holds well under a million.
 */
function tooManyContainers(limit: number, position: number): ContractError {
  return new ContractError(
    "PAYLOAD_TOO_LARGE",
    `Cannot parse JSON: more than ${limit} arrays and objects (at position ${position})`,
    { reason: "json_too_many_containers", limit, position },
  );
}

/** True when `text` holds a non-whitespace character in [from, to). */
export function hasText(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 0x20 && c !== 0x0a && c !== 0x0d && c !== 0x09) return true;
  }
  return false;
}
