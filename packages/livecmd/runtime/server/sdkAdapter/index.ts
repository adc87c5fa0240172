/**
 * Where livecmd fills the SDK's gaps around 2026-07-28 listens and the two eras, in one place.
 * The taps themselves are `runtime/server/listens/`'s: what a listen watches, within which
 * limits, is the live room's (`runtime/live/liveRoom.ts`), which the taps hand each listen they see.
 * `@modelcontextprotocol/server` 2.4 answers `subscriptions/listen` itself, and livecmd relies
 * on exactly these behaviours of it (`test/unit/sdk-contract.test.ts` checks each against the
 * installed SDK and fails, naming the one that changed, after an upgrade), and on one of its
 * client's (8, checked end to end by `test/e2e/http-listen-resume.test.ts`):
 *
 * 1. The acknowledgement echoes the request's `resourceSubscriptions` verbatim: the SDK checks
 *    no URI. So livecmd narrows the request to what it will watch (`narrowedTo`) before the
 *    SDK sees it, and the acknowledgement then tells the client what is watched.
 * 2. An empty `resourceSubscriptions` is left out of the acknowledgement.
 * 3. Nobody is told which listens are open. So livecmd tracks them on the wire: on stdio by
 *    wrapping the transport (`StdioListenTap`: a listen ends with its response, a
 *    `notifications/cancelled` or the wire's close), over HTTP by the listen's event stream
 *    (`HttpListens`: it ends when the stream does).
 * 4. `createMcpHandler` takes a body already parsed (`parsedBody`), so the narrowed listen is
 *    what it serves and the body is read once (`routeByEra`).
 * 5. `resources/updated` reaches every open listen whose filter holds that exact URI (the stdio
 *    entry through the pinned server instance, HTTP through the handler's `notify` bus).
 * 6. `createMcpHandler` with `legacy: "reject"` serves no 2025 request, and its own 2025
 *    fallback is stateless (it could push no `list_changed`): livecmd keeps its own 2025
 *    sessions, routed by the SDK's `isLegacyRequest`, which tells the eras apart as they come
 *    off the wire (`routeByEra`).
 * 7. A spec request whose params have the wrong shape fails the SDK's own parsing with -32603
 *    and a multi-line zod dump; `_wrapHandler`, the SDK's hook for subclasses, wraps that
 *    parsing, so `CheckedParamsServer` checks the params first and answers -32602 in one line.
 * 8. The SDK's client resumes a listen stream that drops before the listen's response (it was
 *    primed with an id) as a `GET` with `Last-Event-ID`, keeps the listen open meanwhile, and
 *    takes a second acknowledgement on the resumed stream without harm; a `405` ends the
 *    listen. So a listen's ids carry it (`server/listens/listenResume.ts`) and any replica serves that `GET`
 *    as the listen again (`HttpListens`).
 * 9. The serving entries report what they refused for the client's own fault through `onerror`,
 *    as they do their own failures: "Rejected inbound request (<cell>): …", "Rejected 2025-era
 *    request on a modern-only endpoint (<cell>)", "Unsupported Media Type…", the -32022 and
 *    -32021 errors' classes, and on stdio a line that is JSON but no JSON-RPC message (its
 *    `ZodError`; a line that is no JSON is dropped unreported). So `clientRefusal` tells them
 *    apart, and `RefusalLog` logs them as refusals, not as the server's errors.
 * 10. The skills extension (`@modelcontextprotocol/server/ext/skills`) attaches to an `McpServer`
 *     and uses only its `server`, `isConnected()` and `registerResource(name, template, config,
 *     read)` (its skill files as one `ResourceTemplate` whose `list` gives the `SKILL.md` files).
 *     An `McpServer` would take over `resources/*`, so livecmd hands it just those
 *     (`attachSkills`) and serves the skill files from its own handlers.
 */
export { routeByEra } from "./httpEraRouting.ts";
export { CheckedParamsServer } from "./requestParams.ts";
export { attachSkills, type ServedSkills } from "./skillsHost.ts";
export { clientRefusal, type ClientRefusal } from "./clientRefusals.ts";
