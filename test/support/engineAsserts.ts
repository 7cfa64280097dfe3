import assert from "node:assert/strict";

/** A candidate transition in a `no_transition` / `model_replay` rejection. */
export interface CandidateDetail {
  from: string;
  to: string;
  label: string;
  failed: Array<{ property: string; kind: string; errors?: string[] }>;
}

/** The candidates of a rejection's details. */
export function candidatesOf(details: Record<string, unknown>): CandidateDetail[] {
  assert.ok(Array.isArray(details.candidates), "details.candidates is missing");
  return details.candidates as CandidateDetail[];
}

/** The failed properties of the candidate going `from` → `to`, as `[kind, property]` pairs. */
export function failedOn(details: Record<string, unknown>, from: string, to: string): Array<[string, string]> {
  const c = candidatesOf(details).find((x) => x.from === from && x.to === to);
  assert.ok(c, `no candidate ${from} -> ${to} in ${JSON.stringify(details.candidates)}`);
  return c.failed.map((f) => [f.kind, f.property]);
}

/** The failed property entry (with its errors) of candidate `from` → `to` naming `property`. */
export function failedProperty(details: Record<string, unknown>, from: string, to: string, property: string) {
  const c = candidatesOf(details).find((x) => x.from === from && x.to === to);
  const f = c?.failed.find((x) => x.property === property);
  assert.ok(f, `no failed ${property} on ${from} -> ${to} in ${JSON.stringify(details.candidates)}`);
  return f;
}
