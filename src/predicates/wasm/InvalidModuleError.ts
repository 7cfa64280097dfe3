/**
 * A module the hub refuses to run: malformed bytes, a forbidden feature, a bad import or
 * export, or limits beyond the configured ones. `feature` names the offending feature
 * (e.g. "SIMD", "floating point") so callers and tests can tell causes apart without
 * parsing prose.
 */
export class InvalidModuleError extends Error {
  readonly feature: string;

  constructor(feature: string, detail: string) {
    super(`${feature}: ${detail}`);
    this.name = "InvalidModuleError";
    this.feature = feature;
  }
}
