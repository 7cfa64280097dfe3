/**
 * A contract being assembled from parts: transitions, the rules that protect each party, and
 * the parties themselves. Parts add steps; `guard` derives a protective rule from the steps
 * already there, so a rule is only ever stated when the model already makes it true.
 */

/** How a party is referred to: a person under /users, or a group of keys under a directory. */
export interface Party {
  /** Role in the pattern ("buyer", "backers"). */
  role: string;
  /** Name used in state paths and results (lower-case identifier). */
  name: string;
  /** A group is a directory of keys (`/backers`), not one key. */
  group?: boolean;
  /** Where the key lives when not under /users (a named signer of an n-of-m group: `/signers/alice.id`). */
  key?: string;
}

export interface Step {
  from: string;
  to: string;
  action: string;
  /** Other properties, already written (`+signed_by(/users/a.id)`, `+after(/terms/deadline.datetime)`). */
  props: string[];
}

export interface DraftRule {
  formula: string;
  /** Party names it protects; empty means every party. */
  protects: string[];
  says: string;
}

/** `/users/<name>.id`, or the directory of a group. */
export function keyOf(party: Party): string {
  if (party.key !== undefined) return party.key;
  return party.group ? `/${party.name}` : `/users/${party.name}.id`;
}

/** The property a party's consent is written as: one key's signature, or any key of a group. */
export function signedBy(party: Party): string {
  return party.group ? `any_signed(${keyOf(party)})` : `signed_by(${keyOf(party)})`;
}

export class Draft {
  readonly steps: Step[] = [];
  readonly rules: DraftRule[] = [];
  /** Parts used, in order ("escrow", "arbiter", "deadline"). */
  readonly parts: string[] = [];
  readonly warnings: string[] = [];
  /** Terms the description mentions that belong in state (`/terms/deadline.datetime`), with what to post there. */
  readonly terms = new Map<string, string>();

  constructor(
    readonly name: string,
    readonly parties: Party[],
  ) {}

  /** The first step's source: every family starts with the step that opens the contract. */
  get initial(): string {
    return this.steps[0]?.from ?? "init";
  }

  party(role: string): Party {
    const p = this.parties.find((x) => x.role === role);
    if (p === undefined) throw new Error(`pattern bug: no party with role ${role}`);
    return p;
  }

  has(role: string): boolean {
    return this.parties.some((x) => x.role === role);
  }

  /** Adds a transition `from -> to [+ACTION props…]`. */
  step(from: string, to: string, action: string, ...props: string[]): this {
    this.steps.push({
      from,
      to,
      action,
      props: props.map((p) => (p.startsWith("+") || p.startsWith("-") ? p : `+${p}`)),
    });
    return this;
  }

  rule(formula: string, says: string, ...protects: Party[]): this {
    this.rules.push({ formula, says, protects: protects.map((p) => p.name) });
    return this;
  }

  uses(part: string): this {
    if (!this.parts.includes(part)) this.parts.push(part);
    return this;
  }

  states(): string[] {
    const out = [this.initial];
    for (const s of this.steps) for (const x of [s.from, s.to]) if (!out.includes(x)) out.push(x);
    return out;
  }

  /** Steps entering `state` from another state. */
  entering(state: string): Step[] {
    return this.steps.filter((s) => s.to === state && s.from !== state);
  }

  /**
   * "`state` is reached only with `prop`": stated when every step entering it carries +prop
   * (`always(!state -> [-prop] !state)`, which under label matching means exactly that).
   * Returns false, stating nothing, when some step does not.
   */
  guard(state: string, prop: string, says: string, ...protects: Party[]): boolean {
    const into = this.entering(state);
    if (into.length === 0 || !into.every((s) => s.props.includes(`+${prop}`))) return false;
    this.rule(`always(!${state} -> [-${prop}] !${state})`, says, ...protects);
    return true;
  }

  /** "From `from`, `who` can reach `to` without `without`'s consent": stated when such a step exists. */
  escape(from: string, to: string, without: Party, says: string, ...protects: Party[]): boolean {
    const neg = `-${signedBy(without)}`;
    const ok = this.steps.some((s) => s.from === from && s.to === to && !s.props.includes(`+${signedBy(without)}`));
    if (!ok) return false;
    this.rule(`always(${from} -> <${neg}> ${to})`, says, ...protects);
    return true;
  }

  /** States with no step leaving them: outcomes, which get self-loops so the model has no dead end. */
  terminals(): string[] {
    return this.states().filter((s) => !this.steps.some((t) => t.from === s));
  }

  /**
   * Paths the steps' predicates read a term from: threshold directories and deadlines. A
   * commit may post alongside its action, so a step that could write one of them would let a
   * party add keys of its own to a quorum or move a deadline it is bound by.
   */
  private termPaths(): string[] {
    const paths = new Set<string>();
    for (const s of this.steps) {
      for (const p of s.props) {
        const m = /^\+(?:threshold\(\d+,\s*|after\(|before\()([^)]+)\)$/.exec(p);
        if (m) paths.add(m[1]!.trim());
      }
    }
    return [...paths];
  }

  model(): string {
    const lines = [`initial ${this.initial}`];
    const terms = this.termPaths();
    for (const s of this.steps) {
      // Fixed at creation, except where the step itself is the one that moves the term (a renewal, a check-in).
      const fixed = terms.filter((t) => !s.props.includes(`+modifies(${t})`)).map((t) => `-modifies(${t})`);
      lines.push(`${s.from} -> ${s.to} [+${s.action}${[...s.props, ...fixed].map((p) => ` ${p}`).join("")}]`);
    }
    for (const t of this.terminals()) lines.push(`${t} -> ${t} []`);
    return `model ${this.name} {\n  ${lines.join("\n  ")}\n}`;
  }

  /** Party name → its protections in words (the rules protecting it, and those protecting everyone). */
  protections(): Record<string, string> {
    const out: Record<string, string> = {};
    for (const p of this.parties) {
      const says = this.rules.filter((r) => r.protects.length === 0 || r.protects.includes(p.name)).map((r) => r.says);
      if (says.length > 0) out[p.name] = `${[...new Set(says)].join(". ")}.`;
    }
    return out;
  }
}

/** How prose names a party: "alice (the buyer)", or "the buyer" when the role is its name. */
export function who(p: Party): string {
  if (p.group) return `the ${p.name.replace(/_/g, " ")}`;
  return p.name === p.role ? `the ${p.role.replace(/_/g, " ")}` : `${p.name} (the ${p.role.replace(/_/g, " ")})`;
}

/** Possessive: "alice's", "the buyer's". */
export function whose(p: Party): string {
  if (p.group) return `one of the ${p.name.replace(/_/g, " ")}'`;
  return p.name === p.role ? `the ${p.role.replace(/_/g, " ")}'s` : `${p.name}'s`;
}
