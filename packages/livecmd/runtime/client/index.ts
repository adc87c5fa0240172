export { TypedClient, type Versioned, type Watch, type WatchOptions } from "./typedClient.ts";
export type { ResourceUri, ResultOf } from "../uri/resourceUri.ts";
