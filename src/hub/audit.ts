/**
 * The core's checks a verifier runs over a whole store (`contract-hub verify`): public so the
 * CLI reaches them without importing the core's internals.
 */
export { type AssetDamage, assetStoreCheck } from "./assets/assetStoreCheck.js";
export { type AssetInvariantReport, checkAssetInvariants } from "./assets/checkAssetInvariants.js";
