import assert from "node:assert/strict";
import { Client, StreamableHTTPClientTransport } from "@modelcontextprotocol/client";

/** An SDK client of `url` on the 2026-07-28 era, with every resources/updated URI it receives, in order. */
export async function updatesListener(
  url: URL,
  name: string,
): Promise<{ client: Client; updates: string[] }> {
  const client = new Client(
    { name, version: "1.0.0" },
    { versionNegotiation: { mode: { pin: "2026-07-28" } } },
  );
  const updates: string[] = [];
  client.setNotificationHandler("notifications/resources/updated", (notification) => {
    updates.push(notification.params.uri);
  });
  await client.connect(new StreamableHTTPClientTransport(url));
  return { client, updates };
}

/** Until `updates` holds `count` URIs, 5 s at most (the notification crosses processes). */
export async function updatesReach(updates: string[], count: number): Promise<void> {
  for (let waited = 0; updates.length < count && waited < 5000; waited += 10)
    await new Promise((resolve) => setTimeout(resolve, 10));
  assert.equal(
    updates.length,
    count,
    `expected ${count} notifications, got ${JSON.stringify(updates)}`,
  );
}
