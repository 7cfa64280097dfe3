import { type Cli, report, runCommand } from "./cliContext.js";
import type { Io } from "./Io.js";
import { DEFAULT_KEY_NAME, KeyStore } from "./KeyStore.js";

/** `contract-hub keygen [--name NAME] [--json]`: creates an ed25519 key in the key directory. */
export function keygenCommand(opts: { name?: string; json?: boolean }, io: Io): Promise<number> {
  return runCommand(io, opts, "keygen", async (cli: Cli) => {
    const store = KeyStore.of(cli.env);
    const key = store.generate(opts.name ?? DEFAULT_KEY_NAME);
    const doc = { name: key.name, public_key: key.publicKey, identity: `ed25519:${key.publicKey}`, dir: store.dir };
    report(cli, doc, () => [`Created key ${key.name}: ed25519:${key.publicKey}`, `  stored in ${store.dir}`]);
    return undefined;
  });
}
