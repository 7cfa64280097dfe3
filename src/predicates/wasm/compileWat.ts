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

/** WAT for a module with the predicate ABI: `extra` fields first, then memory, alloc, and evaluate with `body`. */
export function abiModuleWat(body: string, extra = ""): string {
  return `(module
    ${extra}
    (memory (export "memory") 1)
    (func (export "alloc") (param i32) (result i32) (i32.const 1024))
    (func (export "evaluate") (param $ptr i32) (param $len i32) (result i32) ${body}))`;
}
