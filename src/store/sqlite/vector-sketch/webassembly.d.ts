// The part of the WebAssembly JavaScript API the sketch arena uses: TypeScript declares it only in its DOM library.
declare global {
  namespace WebAssembly {
    interface Module {}
    interface Memory {
      readonly buffer: ArrayBuffer;
      /** Adds pages of 64 KiB; the old buffer is detached and `buffer` is a new, larger one. */
      grow(pages: number): number;
    }
    interface Instance {
      readonly exports: Record<string, unknown>;
    }
    const Module: new (bytes: Uint8Array) => Module;
    const Memory: new (descriptor: { initial: number; maximum?: number }) => Memory;
    const Instance: new (module: Module, imports: Record<string, Record<string, unknown>>) => Instance;
  }
}

export {};
