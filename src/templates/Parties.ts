import type { PartyNames } from "./Template.js";

/** Party names for building a template's text: state paths and how a party is called in prose. */
export class Parties {
  constructor(private readonly names: PartyNames) {}

  /** The name bound to `role` (the role itself when none was given). */
  name(role: string): string {
    return this.names[role] ?? role;
  }

  /** The identity path of `role`: `/users/<name>.id`. */
  key(role: string): string {
    return `/users/${this.name(role)}.id`;
  }

  /** `+signed_by(/users/<name>.id)` */
  signed(role: string): string {
    return `+signed_by(${this.key(role)})`;
  }

  /** How prose names the party: "the buyer", or "alice (the buyer)" when a name was given. */
  who(role: string): string {
    const name = this.name(role);
    return name === role ? `the ${role}` : `${name} (the ${role})`;
  }

  /** Possessive: "the buyer's", or "alice's" when a name was given. */
  whose(role: string): string {
    const name = this.name(role);
    return name === role ? `the ${role}'s` : `${name}'s`;
  }
}
