import { type Cli, report, runCommand } from "./cliContext.js";
import type { Io } from "./Io.js";
import { KeyStore } from "./KeyStore.js";

/** `contract-hub keys [--json]`: lists the keys of the key directory (never their seeds). */
export function keysCommand(opts: { json?: boolean }, io: Io): Promise<number> {
  return runCommand(io, opts, "keys", async (cli: Cli) => {
    const store = KeyStore.of(cli.env);
    const keys = store
      .list()
      .map((k) => ({ name: k.name, public_key: k.publicKey, identity: `ed25519:${k.publicKey}` }));
    report(cli, keys, () =>
      keys.length === 0
        ? `No keys in ${store.dir} (create one: contract-hub keygen)`
        : keys.map((k) => `${k.name.padEnd(16)} ${k.identity}`),
    );
    return undefined;
  });
}
