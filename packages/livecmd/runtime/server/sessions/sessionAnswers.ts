import { randomUUID } from "node:crypto";
import type { JSONRPCMessage, MessageExtraInfo, Transport } from "@modelcontextprotocol/server";
import type { RelayedAnswer } from "../../db/sharedState.ts";
import { answerTooLong } from "../errors/frontDoorErrors.ts";
import { errorMessage } from "../errors/protocolErrors.ts";

/**
 * The client's answers to what one copy of a shared 2025-era session asked it (a confirmation's
 * `elicitation/create`), wherever they arrive. The question goes out on the call's own stream,
 * from the replica whose call waits; the answer is a POST of its own, which a balancer may send
 * to any replica, each with its copy of the session (an SDK instance of its own, numbering its
 * requests from 0, so that a bare id could be any copy's). So each copy sends its requests with
 * ids of its own (`<copy>/<n>`), takes the answers to them, and hands an answer to another
 * copy's request to `relay` (the sessions' NOTIFY channel), whose replica `deliver`s it.
 */
export class SessionAnswers {
  readonly #copy = randomUUID();
  readonly #transport: Transport;
  readonly #relay: (answer: RelayedAnswer) => void;

  /** Before the instance connects: its requests go out under this copy's ids. */
  constructor(transport: Transport, relay: (answer: RelayedAnswer) => void) {
    this.#transport = transport;
    this.#relay = relay;
    const send = transport.send.bind(transport);
    transport.send = (message, options) => send(this.#outgoing(message), options);
  }

  /** Once the instance is connected (it set `onmessage`): answers are taken or relayed. */
  takeAnswers(): void {
    const take = this.#transport.onmessage!;
    this.#transport.onmessage = (message, extra?: MessageExtraInfo) => {
      const id = answerId(message);
      const owner = id === undefined ? undefined : copyOf(id);
      if (owner === undefined) return take(message, extra);
      if (owner.copy === this.#copy)
        return take({ ...message, id: owner.request } as JSONRPCMessage, extra);
      this.#relay(relayable(message as RelayedAnswer));
    };
  }

  /** An answer another replica relayed: taken if it answers this copy's request. */
  deliver(answer: RelayedAnswer): void {
    const owner = copyOf(answer.id);
    if (owner?.copy === this.#copy)
      this.#transport.onmessage?.({ ...answer, id: owner.request } as JSONRPCMessage);
  }

  /** A request (or the cancellation of one) of this copy's, under this copy's id. */
  #outgoing(message: JSONRPCMessage): JSONRPCMessage {
    if ("method" in message && "id" in message)
      return { ...message, id: `${this.#copy}/${message.id}` };
    const params = (message as { params?: { requestId?: unknown } }).params;
    if ("method" in message && message.method === "notifications/cancelled" && params)
      return {
        ...message,
        params: { ...params, requestId: `${this.#copy}/${String(params.requestId)}` },
      };
    return message;
  }
}

/** The id of an answer (a response, not a request or notification) that may be a copy's. */
function answerId(message: JSONRPCMessage): string | undefined {
  if ("method" in message || !("id" in message)) return undefined;
  return typeof message.id === "string" ? message.id : undefined;
}

/** The copy an id belongs to and the request it numbered, when it is a copy's id. */
function copyOf(id: string): { copy: string; request: number } | undefined {
  const match = COPY_ID.exec(id);
  return match ? { copy: match[1]!, request: Number(match[2]) } : undefined;
}

const COPY_ID = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\/(\d{1,15})$/;

/**
 * The answer as relayed: whole when it fits a NOTIFY payload (8000 bytes, less the message
 * around it), else an error answer to the same request saying why, so the call still ends.
 */
function relayable(answer: RelayedAnswer): RelayedAnswer {
  const bytes = Buffer.byteLength(JSON.stringify(answer));
  if (bytes <= MAX_RELAYED_ANSWER) return answer;
  return errorMessage(answerTooLong(bytes, MAX_RELAYED_ANSWER), answer.id) as RelayedAnswer;
}

/** The longest answer relayed between replicas, in bytes of JSON. */
export const MAX_RELAYED_ANSWER = 7000;
