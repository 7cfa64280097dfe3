import { protectionsOf } from "../templates/protectionsOf.js";
import { ruleText } from "../templates/ruleText.js";
import type { PartyNames, TemplateDefinition } from "../templates/Template.js";
import { templateDefinition } from "../templates/templateDefinitions.js";
import { JSON_ANSWER_NOTE } from "./answerSchema.js";
import type { LlmPrompt } from "./LlmProvider.js";

const LANGUAGE = `You write contracts for a contract hub. A contract is an append-only log of signed commits, governed by a MODEL (a labelled transition system) and RULES (modal-logic formulas that must hold on the model). Each party is an ed25519 key stored at /users/<party>.id; party names are lower-case identifiers (alice, bob, buyer).

# Model syntax
model <name> {
  initial <state>
  <from> -> <to> [<property> <property> ...]
}
- States are lower-case identifiers, never these keywords: model part initial export default rule formula starting_at true false not and or implies until always eventually next lfp gfp.
- A property is +NAME (an ACTION label in UPPER_CASE the commit must carry) or a predicate: +signed_by(/users/alice.id) (alice signed the commit), +threshold(2, /signers) (at least 2 keys under /signers signed), +any_signed(/signers), +all_signed(/signers), +before(/terms/deadline.datetime), +after(/terms/deadline.datetime), +oracle_attests(/oracles/o.id, "claim", "value"), +hash_matches(/terms/secret_hash.text), +modifies(/terms/x.json) (the commit writes that path). -p means p must NOT hold.
- Every transition a party takes should name its signer with +signed_by(...). Give every terminal state a self-loop with an empty label: done -> done []
- A commit may carry posts of data (e.g. /terms/price.json) along with its action; no extra transition is needed for that. So what a predicate reads (a threshold or any_signed directory, a before/after date, a hash_matches hash) must not be writable by the parties it binds: give every transition -modifies(<path>) of it, except the step meant to move it (a renewal, a check-in), which carries +modifies(<path>). Otherwise a signer could add keys of its own to a quorum, or a party move a deadline it is bound by.
- Sensitive operations need an explicit label: replacing the model needs a transition with +MODEL, adding a rule +RULE, moving assets +CREATE/+SEND/+RECV. Do not add such transitions unless the description asks for them; without them nobody can change the contract's model.

# Rule syntax
// one line saying what the rule guarantees
export default rule {
  starting_at $PARENT
  formula { <formula> }
}
Formulas: true, false, a state name (true in that state), !f, f & g, f | g, f -> g, always(f), eventually(f), <L> f (some transition matching L leads to f), [L] f (every transition matching L leads to f), <> f and [] f (any transition). Modal operators and ! bind to one atom: write [L] !s, <L> (a | b).
Every rule must hold at the model's initial state; the hub model-checks it and rejects the contract otherwise.

# Label matching (important)
A transition matches a label list L when, for each property p in L, the transition carries p with the same sign OR DOES NOT MENTION p AT ALL. So an unlabeled transition matches every L: [+RELEASE] false is FALSE as soon as any transition leaves without mentioning RELEASE, and <+RELEASE> true is TRUE whenever any transition exists. Do not state protections over action labels alone. State them over the states a transition enters and the signatures it carries:
- "only alice's signature leads into state s":      always(!s -> [-signed_by(/users/alice.id)] !s)
- "only carol moves the contract out of state s":   always(s -> [-signed_by(/users/carol.id)] s)
- "from s, bob can reach t without alice's consent": always(s -> <-signed_by(/users/alice.id)> t)
- "s is entered only after the deadline":           always(!s -> [-after(/terms/deadline.datetime)] !s)
- "once in s, the contract can only go to t":       always(s -> [] t)
- "nothing executes without 2 of the signers":      always(!executed -> [-threshold(2, /signers)] !executed)

# Answer format (exactly these sections)
## Model
\`\`\`modality
model ... { ... }
\`\`\`
## Rules
\`\`\`modality
// guarantee
export default rule { ... }
\`\`\`
(one block per rule, two to six rules, each protecting a party)
## Parties
- <party>: <role in one phrase>
## Protections
- <party>: <what protects this party, in one or two sentences>

${JSON_ANSWER_NOTE}
`;

/** A worked example built from a template, so every example the model sees is one the checker accepts. */
function example(def: TemplateDefinition, description: string, names: PartyNames): string {
  const body = def.build(def.exampleValues, names);
  const parties = def.parties.map((r) => names[r] ?? r);
  const protections = protectionsOf(body.rules, def.parties, (r) => names[r] ?? r);
  return [
    `Description: ${description}`,
    "",
    "## Model",
    "```modality",
    body.model,
    "```",
    "## Rules",
    ...body.rules.map((r) => `\`\`\`modality\n${ruleText(r)}\n\`\`\``),
    "## Parties",
    ...parties.map((p, i) => `- ${p}: ${def.parties[i]}`),
    "## Protections",
    ...Object.entries(protections).map(([p, t]) => `- ${p}: ${t}`),
  ].join("\n");
}

const EXAMPLES = `# Examples

${example(templateDefinition("escrow"), "Alice buys a bike from Bob; Carol arbitrates disputes.", {
  buyer: "alice",
  seller: "bob",
  arbiter: "carol",
})}

${example(templateDefinition("subscription"), "Dana subscribes monthly to Eve's newsletter.", {
  provider: "eve",
  subscriber: "dana",
})}
`;

/** The system prompt: the language, the label-matching rule, the answer format and worked examples. */
export const SYSTEM_PROMPT = `${LANGUAGE}\n${EXAMPLES}`;

/** A hint that names a template: its model and rules as a starting point. */
function hintText(hint: string | undefined, templateId: string | null): string {
  if (hint === undefined || hint.trim() === "") return "";
  if (templateId === null) return `\n\nPattern hint: ${hint.trim().slice(0, 200)}.`;
  const def = templateDefinition(templateId);
  const roles = Object.fromEntries(def.parties.map((r) => [r, r]));
  const body = def.build(def.exampleValues, roles);
  return [
    `\n\nPattern hint: ${def.id} (${def.description}) Start from this pattern, renaming parties and adapting it to the description:`,
    "```modality",
    body.model,
    "```",
    ...body.rules.map((r) => `\`\`\`modality\n${ruleText(r)}\n\`\`\``),
  ].join("\n");
}

/** The first request for a description (and optional hint, resolved to a template id when it names one). */
export function buildPrompt(description: string, hint?: string, hintTemplate: string | null = null): LlmPrompt {
  const user = `Write a contract for this description:\n\n${description.trim()}${hintText(hint, hintTemplate)}\n\nAnswer in the format above: ## Model, ## Rules, ## Parties, ## Protections.`;
  return { system: SYSTEM_PROMPT, messages: [{ role: "user", content: user }] };
}

/** The prompt as one text (the `prompt` field of the result, a debugging aid). */
export function promptText(prompt: LlmPrompt): string {
  return [prompt.system, ...prompt.messages.map((m) => `## ${m.role}\n\n${m.content}`)].join("\n\n");
}
