/**
 * Fastify validator compiler on TypeBox's compiled checks. Bodies are checked as sent (no
 * coercion: a string where a number belongs is a 400). Path and query values arrive as
 * strings; only those spelled exactly as a decimal integer become numbers, so `limit=1.5`
 * or `limit=1e3` fail instead of being rounded, and a decimal integer beyond 2^53 − 1 is
 * refused quoting the text as sent (as a number it would already be rounded).
 */
import type { FastifySchemaCompiler } from "fastify";
import type { TSchema } from "typebox";
import { Compile } from "typebox/compile";

const DECIMAL = /^-?(0|[1-9][0-9]{0,15})$/;

/** Compiles one route schema part. */
export const validatorCompiler: FastifySchemaCompiler<TSchema> = ({ schema, httpPart }) => {
  const check = Compile(schema);
  return (value: unknown) => {
    const v = httpPart === "body" ? value : convertIntegers(schema, value);
    if (v instanceof UnsafeInteger) return { error: [v.error()] as never };
    if (check.Check(v)) return { value: v };
    return { error: [...check.Errors(v)] as never };
  };
};

/** A query or path value spelled as an integer that no JavaScript number holds exactly. */
class UnsafeInteger {
  constructor(
    readonly key: string,
    readonly text: string,
  ) {}

  /** The validation error fastify reports (field, keyword and message as TypeBox's would be). */
  error() {
    return {
      instancePath: `/${this.key}`,
      keyword: "maximum",
      params: { limit: Number.MAX_SAFE_INTEGER },
      message: `must be an integer within ±${Number.MAX_SAFE_INTEGER}, got ${JSON.stringify(this.text)}`,
    };
  }
}

function convertIntegers(schema: TSchema, value: unknown): unknown {
  const props = (schema as { properties?: Record<string, { type?: string; anyOf?: { type?: string }[] }> }).properties;
  if (!props || value === null || typeof value !== "object") return value;
  const out: Record<string, unknown> = { ...(value as Record<string, unknown>) };
  for (const [key, prop] of Object.entries(props)) {
    const v = out[key];
    const integral = prop.type === "integer" || prop.anyOf?.some((s) => s.type === "integer");
    if (integral && typeof v === "string" && DECIMAL.test(v)) {
      const n = Number(v);
      if (!Number.isSafeInteger(n)) return new UnsafeInteger(key, v);
      out[key] = n;
    }
  }
  return out;
}

/** The field path a TypeBox error names (a missing property is named, not its parent). */
export function errorField(
  prefix: string,
  error: { instancePath?: string; keyword?: string; params?: unknown } | undefined,
): string {
  const base = `${prefix}${error?.instancePath ?? ""}`;
  const missing = (error?.params as { requiredProperties?: string[] } | undefined)?.requiredProperties?.[0];
  return error?.keyword === "required" && missing !== undefined ? `${base}/${missing}` : base;
}
