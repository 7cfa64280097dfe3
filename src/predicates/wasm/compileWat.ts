import wabtInit from "wabt";

type Features = NonNullable<Parameters<Awaited<ReturnType<typeof wabtInit>>["parseWat"]>[2]>;
let wabt: ReturnType<typeof wabtInit> | undefined;

/** Compiles WebAssembly text to binary with the `wabt` package (tests, benches and docs examples only). */
export async function compileWat(source: string, features: Features = {}): Promise<Uint8Array> {
  wabt ??= wabtInit();
  const module = (await wabt).parseWat("predicate.wat", source, {
    bulk_memory: true,
    multi_value: true,
    sign_extension: true,
    ...features,
  });
  try {
    return module.toBinary({}).buffer;
  } finally {
    module.destroy();
  }
}
