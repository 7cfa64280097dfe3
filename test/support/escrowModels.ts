/** Escrow models of the model-replacement tests: V1, a replacement that replays its history, and a rule. */

export const V1 = `model Escrow {
  initial init
  init -> deposited [+DEPOSIT +signed_by(/users/buyer.id)]
  deposited -> released [+RELEASE +signed_by(/users/buyer.id)]
  deposited -> deposited [+MODEL +signed_by(/users/buyer.id) +signed_by(/users/seller.id)]
  deposited -> deposited [+RULE +signed_by(/users/buyer.id)]
  released -> released []
}`;
/** Adds a refund path; keeps every transition the history took. */
export const V2_GOOD = V1.replace(
  "released -> released []",
  "deposited -> refunded [+REFUND +signed_by(/users/seller.id)]\n  refunded -> refunded []\n  released -> released []",
);
export const RELEASE_REACHABLE = "rule release { formula { always(eventually(released | refunded)) } }";
