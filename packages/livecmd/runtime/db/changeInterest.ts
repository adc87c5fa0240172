import type { KeyValue } from "./keyedAccess.ts";

/**
 * The reads a process watches: tables read whole (`ANY_TABLE`: every table), tables read
 * through filters, and the values of key columns looked up. A live `ReadSet` is one.
 */
export interface WatchedReads {
  readonly whole: ReadonlySet<string>;
  readonly keyed: ReadonlyMap<string, ReadonlyMap<string, ReadonlySet<KeyValue>>>;
  readonly filtered: ReadonlyMap<string, unknown>;
}

/** Where a change capture stood before a run: what a fence replays from. */
export interface InterestMark {
  /** The capture's position known then; undefined before it started. */
  readonly position: number | undefined;
  /** How many routes had been taken then. */
  readonly routes: number;
}

/**
 * A change capture that brings a process only the changes to what it watches (the bus): told
 * each run's reads as they are watched and let go, it takes and drops routes for them. Before a
 * run a process marks where the capture stands; after it, the fence makes sure that a change
 * made while the run read, before its new routes were taken, still reaches it.
 */
export interface ChangeInterest {
  mark(): InterestMark;
  add(reads: WatchedReads): void;
  remove(reads: WatchedReads): void;
  /** Resolves once every change since `mark` to what routes taken since then bring has been told. */
  fence(mark: InterestMark | undefined): Promise<void>;
}
