/**
 * What a verifier throws when it cannot tell whether a token is good (its issuer cannot be
 * reached): the endpoint answers 503 with `Retry-After`, where a refusal would be a lie.
 */
export class AuthUnavailable extends Error {
  /** Seconds until the verifier will try again. */
  readonly retryAfterS: number;
  /** True for the first refusal of an outage: the one that is logged. */
  readonly firstOfOutage: boolean;

  constructor(message: string, retryAfterS: number, firstOfOutage: boolean) {
    super(message);
    this.retryAfterS = retryAfterS;
    this.firstOfOutage = firstOfOutage;
  }
}
