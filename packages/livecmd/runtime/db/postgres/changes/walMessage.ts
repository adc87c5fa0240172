/**
 * What a WAL stream of pgoutput hands the relay, as the driver decodes it (`PgoutputPlugin`'s
 * messages, with each value left as its type's text): a transaction's begin and commit, the
 * relations it writes (sent before their first row, and again after DDL), its rows, TRUNCATE,
 * livecmd's logical messages, and the server's keepalives.
 */
export type WalMessage =
  /** `xid`: the transaction's id, 32 bits as the WAL has it. */
  | { readonly tag: "begin"; readonly xid: number }
  | { readonly tag: "commit"; readonly commitEndLsn: string | null }
  | WalRelation
  | { readonly tag: "insert"; readonly relation: WalRelation; readonly new: WalTuple }
  | {
      readonly tag: "update";
      readonly relation: WalRelation;
      readonly key: WalTuple | null;
      readonly old: WalTuple | null;
      readonly new: WalTuple;
    }
  | {
      readonly tag: "delete";
      readonly relation: WalRelation;
      readonly key: WalTuple | null;
      readonly old: WalTuple | null;
    }
  | { readonly tag: "truncate"; readonly relations: readonly WalRelation[] }
  | {
      readonly tag: "message";
      readonly prefix: string;
      readonly transactional: boolean;
      readonly content: Uint8Array;
    }
  | {
      readonly tag: "keepalive";
      readonly lsn: string;
      /** Every message that came before it was handed over already (none waits in the driver). */
      readonly behindNothing: boolean;
    };

export interface WalRelation {
  readonly tag: "relation";
  readonly relationOid: number;
  readonly schema: string;
  readonly name: string;
  readonly columns: readonly { readonly name: string; readonly typeOid: number }[];
}

/** One row version, each value the type's text (null; undefined: an unchanged TOASTed value). */
export type WalTuple = Readonly<Record<string, string | null | undefined>>;

/** A replication slot streamed from its confirmed position, as a driver opens one. */
export interface WalStream {
  /**
   * Streams until stopped or failed, handing each message to `each` in order and waiting for it
   * (so a relay behind pauses the stream); rejects when the stream fails.
   */
  run(each: (message: WalMessage) => Promise<void> | void): Promise<void>;
  /** Tells the server everything up to `lsn` is passed on: the slot need not keep it. */
  confirm(lsn: string): Promise<void>;
  stop(): Promise<void>;
}

/** Opens `slot`'s stream of the tables in `publication` (a driver's `node-postgres/walStream.ts`). */
export type OpenWalStream = (slot: string, publication: string) => Promise<WalStream>;
