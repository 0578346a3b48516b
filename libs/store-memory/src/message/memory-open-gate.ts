import { UnavailableError } from '@qim/store-core';

/** Open until `close()`: after it every call of the store's parts fails with `UnavailableError`, before it reads anything. */
export class MemoryOpenGate {
  private closed = false;

  constructor(private readonly what: string) {}

  close(): void {
    this.closed = true;
  }

  check(): void {
    if (this.closed) throw new UnavailableError(`the ${this.what} is closed`);
  }
}
