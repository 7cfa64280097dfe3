// The model checker (src/lang/evaluate.ts) compares state sets with Buffer; bufferShim.ts
// provides exactly this much of it in the browser.
declare const Buffer: {
  from(buffer: ArrayBufferLike, byteOffset?: number, length?: number): { equals(other: unknown): boolean };
};
