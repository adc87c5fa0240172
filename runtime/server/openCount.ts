import type { AuthInfo } from "@modelcontextprotocol/server";
import type { LimitName, SubscriptionLimits } from "./subscriptionLimits.ts";

/** Things open at once (listen streams, sessions), counted by principal and in all. */
export class OpenCount {
  readonly #limits: SubscriptionLimits;
  readonly #perPrincipal: LimitName;
  readonly #total: LimitName;
  readonly #byPrincipal = new Map<string, number>();
  #open = 0;

  /** `perPrincipal` and `total`: the limits, of `limits`, that bound the count. */
  constructor(limits: SubscriptionLimits, perPrincipal: LimitName, total: LimitName) {
    this.#limits = limits;
    this.#perPrincipal = perPrincipal;
    this.#total = total;
  }

  /** The limit another one of `auth` would go over, if any. */
  full(auth: AuthInfo | undefined): LimitName | undefined {
    if (this.#open >= this.#limits[this.#total]) return this.#total;
    if (auth && (this.#byPrincipal.get(auth.clientId) ?? 0) >= this.#limits[this.#perPrincipal])
      return this.#perPrincipal;
    return undefined;
  }

  open(auth: AuthInfo | undefined): void {
    this.#open++;
    if (auth) this.#byPrincipal.set(auth.clientId, (this.#byPrincipal.get(auth.clientId) ?? 0) + 1);
  }

  close(auth: AuthInfo | undefined): void {
    this.#open--;
    if (!auth) return;
    const left = (this.#byPrincipal.get(auth.clientId) ?? 1) - 1;
    if (left > 0) this.#byPrincipal.set(auth.clientId, left);
    else this.#byPrincipal.delete(auth.clientId);
  }
}
