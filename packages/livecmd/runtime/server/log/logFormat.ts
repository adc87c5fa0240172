/** `pretty`: one readable `livecmd: …` line each; `json`: one JSON object a line, for collectors. */
export type LogFormat = "pretty" | "json";

export const LOG_FORMATS: readonly LogFormat[] = ["pretty", "json"];

/** The default: the readable lines livecmd has always written, wherever stderr goes. */
export const DEFAULT_LOG_FORMAT: LogFormat = "pretty";
