import type { SubscriptionLimits } from "./limitDefaults.ts";
import type { LimitName } from "./subscriptionLimits.ts";

/** Things open at once (listen streams, sessions), counted by holder and in all. */
export class OpenCount {
  readonly #limits: SubscriptionLimits;
  readonly #perPrincipal: LimitName;
  readonly #total: LimitName;
  readonly #byHolder = new Map<string, number>();
  #open = 0;

  /** `perPrincipal` and `total`: the limits, of `limits`, that bound the count. */
  constructor(limits: SubscriptionLimits, perPrincipal: LimitName, total: LimitName) {
    this.#limits = limits;
    this.#perPrincipal = perPrincipal;
    this.#total = total;
  }

  /** The limit another one of `holder` would go over, if any. */
  full(holder: string | undefined): LimitName | undefined {
    if (this.#open >= this.#limits[this.#total]) return this.#total;
    if (this.shareFull(holder)) return this.#perPrincipal;
    return undefined;
  }

  /** Whether `holder` holds its whole share, whatever room the total has. */
  shareFull(holder: string | undefined): boolean {
    return (
      holder !== undefined && (this.#byHolder.get(holder) ?? 0) >= this.#limits[this.#perPrincipal]
    );
  }

  open(holder: string | undefined): void {
    this.#open++;
    if (holder !== undefined) this.#byHolder.set(holder, (this.#byHolder.get(holder) ?? 0) + 1);
  }

  close(holder: string | undefined): void {
    this.#open--;
    if (holder === undefined) return;
    const left = (this.#byHolder.get(holder) ?? 1) - 1;
    if (left > 0) this.#byHolder.set(holder, left);
    else this.#byHolder.delete(holder);
  }
}
