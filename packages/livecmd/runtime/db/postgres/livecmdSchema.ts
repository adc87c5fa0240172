/** The schema livecmd keeps its functions and its shared tables in, apart from the app's tables. */
export const LIVECMD_SCHEMA = "livecmd";
