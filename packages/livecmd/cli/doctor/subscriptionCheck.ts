import type { SubscriptionFilter } from "@modelcontextprotocol/client";
import type { Session } from "./connect.ts";
import { errorText } from "./errorText.ts";
import { fail, ok, type Finding } from "./report.ts";

const NOT_TRIED = "no read worked, so there is no URI to subscribe to";
const FIX =
  "acknowledge every subscription the capabilities promise, or stop declaring resources.subscribe / listChanged";

/**
 * Whether the server takes the subscriptions it declares: `subscriptions/listen` on 2026-07-28
 * (resource updates when `subscribe` is declared, list changes when `listChanged` is),
 * `resources/subscribe` on the 2025 era, where list changes need no request. An update cannot be
 * forced on an arbitrary server, so the acknowledgement is what is checked. `uri`: a URI that
 * read successfully.
 */
export async function subscriptionFinding(
  session: Session,
  uri: string | undefined,
  timeoutMs: number,
): Promise<Finding> {
  const resources = session.client.getServerCapabilities()?.resources;
  if (session.era.name === "2026-07-28") {
    return listenFinding(
      session,
      uri,
      resources?.subscribe === true,
      resources?.listChanged === true,
      timeoutMs,
    );
  }
  const step = "resources/subscribe";
  if (!resources?.subscribe)
    return ok(step, "resources.subscribe not declared: hosts cannot watch a document");
  if (uri === undefined) return ok(step, `not tried: ${NOT_TRIED}`);
  try {
    await session.client.subscribeResource({ uri }, { timeout: timeoutMs });
  } catch (error) {
    return fail(
      step,
      `${uri} refused: ${errorText(error, timeoutMs)}, though resources.subscribe is declared`,
      FIX,
    );
  }
  try {
    await session.client.unsubscribeResource({ uri }, { timeout: timeoutMs });
  } catch (error) {
    return fail(
      step,
      `${uri} subscribed, but resources/unsubscribe fails: ${errorText(error, timeoutMs)}`,
      "answer resources/unsubscribe for every URI resources/subscribe took",
    );
  }
  return ok(step, `${uri} subscribed and unsubscribed`);
}

async function listenFinding(
  session: Session,
  uri: string | undefined,
  subscribe: boolean,
  listChanged: boolean,
  timeoutMs: number,
): Promise<Finding> {
  const step = "subscriptions/listen";
  if (!subscribe && !listChanged) {
    return ok(
      step,
      "neither resources.subscribe nor listChanged declared: hosts cannot watch documents or the listing",
    );
  }
  const watched = subscribe ? uri : undefined;
  if (watched === undefined && !listChanged) return ok(step, `not tried: ${NOT_TRIED}`);
  const filter: SubscriptionFilter = {
    ...(watched !== undefined && { resourceSubscriptions: [watched] }),
    ...(listChanged && { resourcesListChanged: true }),
  };
  const asked = [
    ...(watched !== undefined ? [`updates of ${watched}`] : []),
    ...(listChanged ? ["list changes"] : []),
  ].join(" and ");
  let honored: SubscriptionFilter;
  try {
    const subscription = await session.client.listen(filter, { timeout: timeoutMs });
    honored = subscription.honoredFilter;
    await subscription.close();
  } catch (error) {
    return fail(step, `listening for ${asked} fails: ${errorText(error, timeoutMs)}`, FIX);
  }
  const dropped = [
    ...(watched !== undefined && !honored.resourceSubscriptions?.includes(watched)
      ? [`updates of ${watched}`]
      : []),
    ...(listChanged && !honored.resourcesListChanged ? ["list changes"] : []),
  ];
  if (dropped.length > 0) {
    return fail(
      step,
      `the acknowledgement leaves out ${dropped.join(" and ")}, which the capabilities promise`,
      FIX,
    );
  }
  const notTried = subscribe && watched === undefined ? ` (${NOT_TRIED})` : "";
  return ok(step, `acknowledged: ${asked}${notTried}`);
}
