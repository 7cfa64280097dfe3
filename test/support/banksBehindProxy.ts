/**
 * The set-up of the `send` tests whose hub misbehaves: a real hub on loopback, a real HTTP
 * proxy in front of it (tamperingProxy.ts) that the test makes refuse or hold some requests,
 * and one party whose working copies remember the proxy as their hub: a registered key and two
 * contracts of a bank model, `depot` and `sink`, both on the hub. The depot holds no asset yet.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { Actor, type HubProcess, startHubProcess, tempDir } from "../cli-support.js";
import { startTamperingProxy, type TamperingProxy } from "./tamperingProxy.js";

const BANK =
  "model bank {\n  initial open\n  open -> open [+CREATE]\n  open -> open [+SEND]\n  open -> open [+RECV]\n}\n";

export interface BanksBehindProxy {
  hub: HubProcess;
  proxy: TamperingProxy;
  relay: Actor;
  /** The working copies' directories, and their contracts' ids. */
  depot: string;
  depotId: string;
  sink: string;
  sinkId: string;
  /** Closes the proxy, then stops the hub. */
  close(): Promise<void>;
}

/** Starts the hub and its proxy in a new temporary directory named after `name`, and makes both contracts. */
export async function banksBehindProxy(name: string): Promise<BanksBehindProxy> {
  const base = tempDir(name);
  const hub = await startHubProcess(join(base, "hub-data"));
  const proxy = await startTamperingProxy(hub.url);
  const relay = new Actor("relay", base, proxy.url);
  await relay.ok(["keygen", "--name", "r"]);
  await relay.ok(["register"]);
  writeFileSync(join(relay.root, "bank.modality"), BANK);
  const init = async (dir: string) =>
    (await relay.ok<{ contract_id: string }>(["init", dir, "--model", "bank.modality"])).contract_id;
  const depotId = await init("depot");
  const sinkId = await init("sink");
  return {
    hub,
    proxy,
    relay,
    depot: join(relay.root, "depot"),
    depotId,
    sink: join(relay.root, "sink"),
    sinkId,
    close: async () => {
      await proxy.close();
      await hub.stop();
    },
  };
}
