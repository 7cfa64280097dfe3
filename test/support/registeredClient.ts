import { HubClient } from "../../src/client/HubClient.js";
import { generateKeyPair } from "../../src/contract/keys.js";

/** A client of the hub at `url` for a newly registered identity, signing with its new access key. */
export async function registeredClient(url: string): Promise<HubClient> {
  const identity = generateKeyPair();
  const access = generateKeyPair();
  const anonymous = new HubClient({ url, retries: 0 });
  await anonymous.register(identity.seed, access.seed);
  return anonymous.withKey(access.seed);
}
