// No imports: the CLI reads this default for its help on every run.

/**
 * How long a person has to answer a confirmation, on either era: a 2025 call waits this long for
 * the answer to its `elicitation/create` (then ends with a tool error: nothing ran), and a
 * 2026-07-28 `requestState` expires after it. `confirmTimeoutMs`, `--confirm-timeout`.
 */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 5 * 60_000;
