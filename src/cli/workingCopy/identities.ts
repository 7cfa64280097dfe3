/** Command-line spellings of identities and `name=value` flags. */
import { isContractError } from "../../contract/ContractError.js";
import { encodeHex, parseIdentity } from "../../contract/hex.js";
import { UsageError } from "../cliContext.js";
import type { KeyStore } from "../KeyStore.js";

/** A key name of the key directory, or a public key (hex or `ed25519:<hex>`), as plain lower-case hex. */
export function resolveIdentity(keys: KeyStore, text: string, what: string): string {
  const named = keys.find(text);
  if (named !== null) return named.publicKey;
  try {
    return encodeHex(parseIdentity(text, what));
  } catch (err) {
    if (!isContractError(err)) throw err;
    throw new UsageError(`${what}: ${JSON.stringify(text)} is neither a key name in ${keys.dir} nor a public key`);
  }
}

/**
 * Splits repeated `name=value` flags; a usage error names the flag when `=` is missing, and
 * the name when it is given twice (`repeated_name`): taking the later value would silently
 * drop the other, and a contract's parties and terms cannot be changed once it is created.
 */
export function assignments(list: readonly string[] | undefined, flag: string): Array<[string, string]> {
  const seen = new Set<string>();
  return (list ?? []).map((item) => {
    const at = item.indexOf("=");
    if (at <= 0) throw new UsageError(`${flag} expects name=value, got ${JSON.stringify(item)}`);
    const name = item.slice(0, at);
    if (seen.has(name)) {
      throw new UsageError(`${flag} ${name} is given twice; give each name once`, {
        reason: "repeated_name",
        option: flag,
        name,
      });
    }
    seen.add(name);
    return [name, item.slice(at + 1)];
  });
}

/** Commander collector for repeatable options. */
export function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
}
