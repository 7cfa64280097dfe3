import { ContractError } from "../contract/ContractError.js";

/**
 * The error of a synthesis whose caller went away (its `signal` aborted): the transport's
 * client closed the connection before the answer, so nobody reads this; it ends the request's
 * provider calls instead of letting them run on to the deadline.
 */
export function cancelledError(): ContractError {
  return new ContractError(
    "INVALID_REQUEST",
    "Synthesis cancelled: the client closed the connection before the answer",
    { reason: "client_aborted" },
  );
}
