/** Reads every given contract back through the hub (full pull) and checks each log as a chain. */
import type { HubClient } from "../../../src/client/HubClient.js";
import { chainProblems } from "./setChecker.js";

export interface ReadBack {
  /** Stored commit hashes per contract, in log order. */
  stored: Map<string, string[]>;
  /** Broken links, hashes that do not recompute, heads that are not the tip. */
  problems: string[];
}

export async function readBack(client: HubClient, ids: readonly string[]): Promise<ReadBack> {
  const stored = new Map<string, string[]>();
  const problems: string[] = [];
  for (const id of ids) {
    const { head, commits } = await client.pull(id);
    problems.push(...chainProblems(id, head, commits));
    stored.set(
      id,
      commits.map((c) => c.hash),
    );
  }
  return { stored, problems };
}
