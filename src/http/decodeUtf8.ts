import { ContractError } from "../contract/ContractError.js";

const utf8 = new TextDecoder("utf-8", { fatal: true });

/**
 * Decodes a request body strictly: bytes that are not UTF-8 are refused (INVALID_REQUEST,
 * `body_not_utf8`) instead of being replaced by U+FFFD. Requests are signed over their raw
 * bytes, so a lenient decoder would act on a text the signer never sent.
 */
export function decodeUtf8(raw: Buffer): string {
  try {
    return utf8.decode(raw);
  } catch {
    throw new ContractError("INVALID_REQUEST", "Cannot parse JSON: the request body is not valid UTF-8", {
      reason: "body_not_utf8",
    });
  }
}
