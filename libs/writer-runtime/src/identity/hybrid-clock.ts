import { InvariantViolationError } from '@qim/store-core';

const LOGICAL_BITS = 16n;
const LOGICAL_MAX = (1n << LOGICAL_BITS) - 1n;
const PHYSICAL_MAX = (1n << 47n) - 1n;

/** One HLC reading: `physicalMs` (wall-clock based, never going back) and a 16-bit `logical` counter. */
export interface HlcTick {
  readonly physicalMs: bigint;
  readonly logical: number;
  /** `physicalMs << 16 | logical`: strictly increasing across ticks (u64, bit 63 clear). */
  readonly packed: bigint;
}

/**
 * A hybrid logical clock for one writer: every tick is strictly greater than the previous one and
 * than the floor recorded by earlier holders of the writer id, even when the wall clock steps back.
 */
export class HybridLogicalClock {
  private last: bigint;

  constructor(
    private readonly wallMs: () => bigint,
    floor: bigint = 0n,
  ) {
    this.last = floor;
  }

  /** The highest value issued so far (recorded in the lease so a successor starts above it). */
  highWater(): bigint {
    return this.last;
  }

  /** Raises the floor (never lowers it). */
  observe(packed: bigint): void {
    if (packed > this.last) this.last = packed;
  }

  tick(): HlcTick {
    const wall = this.wallMs();
    const lastPhysical = this.last >> LOGICAL_BITS;
    const lastLogical = this.last & LOGICAL_MAX;
    let physical = wall > lastPhysical ? wall : lastPhysical;
    let logical = physical === lastPhysical ? lastLogical + 1n : 0n;
    if (logical > LOGICAL_MAX) {
      physical += 1n;
      logical = 0n;
    }
    if (physical > PHYSICAL_MAX) throw new InvariantViolationError('HLC physical time beyond 47 bits');
    this.last = (physical << LOGICAL_BITS) | logical;
    return { physicalMs: physical, logical: Number(logical), packed: this.last };
  }
}
