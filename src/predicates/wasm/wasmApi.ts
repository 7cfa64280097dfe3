/**
 * The slice of the `WebAssembly` global this package uses, typed here because the
 * project's `lib` (ES2023, no DOM) and @types/node 20 do not declare it.
 */
export interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  compile(bytes: Uint8Array): Promise<WasmModuleHandle>;
  Module: {
    new (bytes: Uint8Array): WasmModuleHandle;
    exports(module: WasmModuleHandle): { name: string; kind: string }[];
  };
  Instance: new (module: WasmModuleHandle, imports: object) => { exports: Record<string, unknown> };
  instantiate(module: WasmModuleHandle, imports: object): Promise<{ exports: Record<string, unknown> }>;
}

/** An opaque compiled module (structured-cloneable to workers). */
export interface WasmModuleHandle {
  readonly __wasmModule?: never;
}

/** A mutable exported global as seen from JS. */
export interface WasmGlobalHandle {
  value: bigint | number;
}

/** The typed `WebAssembly` global. */
export const wasm = (globalThis as unknown as { WebAssembly: WasmApi }).WebAssembly;
