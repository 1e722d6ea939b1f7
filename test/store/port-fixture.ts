// What a backend hands each conformance suite: a fresh port and how to release what backs it.
export interface PortFixture<P> {
  port: P;
  close(): void | Promise<void>;
}
