import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";
import { ProtocolError } from "@modelcontextprotocol/server";
import ts from "typescript";
import { DEFAULT_SUBSCRIPTION_LIMITS } from "../../packages/livecmd/runtime/live/limitDefaults.ts";
import * as frontDoorErrors from "../../packages/livecmd/runtime/server/errors/frontDoorErrors.ts";
import * as limitErrors from "../../packages/livecmd/runtime/server/errors/limitErrors.ts";
import * as answers from "../../packages/livecmd/runtime/server/errors/protocolErrors.ts";
import * as toolErrors from "../../packages/livecmd/runtime/server/errors/toolErrors.ts";
import { root } from "../helpers/cli.ts";

/** The runtime package, whose runtime/ the scan reads (paths below are from its folder). */
const LIVECMD = path.join(root, "packages/livecmd");

/** The one room that builds JSON-RPC errors and writes error answers. */
const ERROR_ROOM = "runtime/server/errors/";

/** Every builder of the room, by name. */
const protocolErrors = { ...answers, ...toolErrors, ...frontDoorErrors, ...limitErrors };

/**
 * What building a JSON-RPC error looks like in source, each found by reading the syntax tree
 * (comments and strings that mention a code are not code).
 */
const BUILDS: readonly { readonly what: string; readonly finds: (node: ts.Node) => boolean }[] = [
  {
    what: "an SDK error class constructed (new ProtocolError, ResourceNotFoundError...)",
    finds: (node) =>
      ts.isNewExpression(node) &&
      ts.isIdentifier(node.expression) &&
      SDK_ERROR_CLASSES.has(node.expression.text),
  },
  {
    what: "a JSON-RPC error object written out ({ jsonrpc, error })",
    finds: (node) =>
      ts.isObjectLiteralExpression(node) &&
      ["jsonrpc", "error"].every((name) =>
        node.properties.some(
          (property) =>
            property.name !== undefined &&
            ts.isIdentifier(property.name) &&
            property.name.text === name,
        ),
      ),
  },
  {
    what: "a JSON-RPC error code written as a number (-32768..-32000)",
    finds: (node) =>
      ts.isPrefixUnaryExpression(node) &&
      node.operator === ts.SyntaxKind.MinusToken &&
      ts.isNumericLiteral(node.operand) &&
      Number(node.operand.text) >= 32000 &&
      Number(node.operand.text) <= 32768,
  },
];

/** The SDK's classes whose instances it sends as JSON-RPC errors. */
const SDK_ERROR_CLASSES = new Set([
  "ProtocolError",
  "McpError",
  "ResourceNotFoundError",
  "InvalidParamsError",
  "InvalidRequestError",
  "MethodNotFoundError",
  "InternalError",
  "ParseError",
  "UrlElicitationRequiredError",
  "MissingRequiredClientCapabilityError",
  "UnsupportedProtocolVersionError",
]);

function typescriptFiles(folder: string): string[] {
  return readdirSync(path.join(LIVECMD, folder), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.posix.join(folder, entry.name);
    if (entry.isDirectory()) return typescriptFiles(relative);
    return entry.name.endsWith(".ts") ? [relative] : [];
  });
}

/** Each place in `text` that builds a JSON-RPC error, as `file:line: what`. */
function buildsIn(file: string, text: string): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    for (const build of BUILDS) {
      if (!build.finds(node)) continue;
      const { line } = source.getLineAndCharacterOfPosition(node.getStart());
      found.push(`${file}:${line + 1}: ${build.what}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe("every JSON-RPC error livecmd sends is built in server/errors/", () => {
  it("no other runtime file builds one", () => {
    const elsewhere = typescriptFiles("runtime")
      .filter((file) => !file.startsWith(ERROR_ROOM))
      .flatMap((file) => buildsIn(file, readFileSync(path.join(LIVECMD, file), "utf8")));
    assert.deepEqual(elsewhere, []);
  });

  for (const [sample, what] of [
    ['throw new ProtocolError(ProtocolErrorCode.InvalidParams, "no")', BUILDS[0]!.what],
    ['send({ jsonrpc: "2.0", id: 1, error: { code, message } })', BUILDS[1]!.what],
    ["const code = -32001;", BUILDS[2]!.what],
  ] as const) {
    it(`the scan finds ${what}`, () => {
      assert.deepEqual(buildsIn("sample.ts", sample), [`sample.ts:1: ${what}`]);
    });
  }

  it("the scan passes a request written out and a code named in a comment", () => {
    const sample = `// answers -32602\npost({ jsonrpc: "2.0", id: 1, method: "initialize" });`;
    assert.deepEqual(buildsIn("sample.ts", sample), []);
  });
});

/** Each refusal of the room, with the code it answers: a change of code is a change on the wire. */
const CODES: readonly (readonly [name: string, error: ProtocolError, code: number])[] = [
  ["resourceNotFound", protocolErrors.resourceNotFound("app://x"), -32602],
  ["invalidUri", protocolErrors.invalidUri("app://x", []), -32602],
  ["unknownTool", protocolErrors.unknownTool("t"), -32602],
  ["staleCursor", protocolErrors.staleCursor("c"), -32602],
  ["invalidCursor", protocolErrors.invalidCursor("c"), -32602],
  ["unknownPrompt", protocolErrors.unknownPrompt({ name: "p" }), -32602],
  ["unknownTemplate", protocolErrors.unknownTemplate({ uri: "app://t/{id}" }), -32602],
  ["unknownVariable", protocolErrors.unknownVariable({ uri: "app://t/{id}" }, "v", ["id"]), -32602],
  ["invalidRequestParams", protocolErrors.invalidRequestParams("resources/read", []), -32602],
  [
    "limitReached",
    protocolErrors.limitReached({
      limit: "total",
      value: DEFAULT_SUBSCRIPTION_LIMITS.total,
      what: "subscribing",
    }),
    -32602,
  ],
  ["rateLimited", protocolErrors.rateLimited("c", 1000), protocolErrors.RATE_LIMITED],
  ["commandFailed", protocolErrors.commandFailed(new Error("no")), -32603],
  ["headerMismatch", protocolErrors.headerMismatch("uri", "app://x", undefined), -32020],
  ["payloadTooLarge", protocolErrors.payloadTooLarge(), -32000],
  [
    "sessionLimitReached",
    protocolErrors.sessionLimitReached(DEFAULT_SUBSCRIPTION_LIMITS, "sessionsTotal", 60_000),
    -32000,
  ],
  ["parseError", protocolErrors.parseError(), -32700],
  ["hostRefused", protocolErrors.hostRefused("evil.example"), -32000],
  ["originRefused", protocolErrors.originRefused("https://evil.example"), -32000],
  ["sessionNotFound", protocolErrors.sessionNotFound("s1"), -32001],
  ["sessionRequired", protocolErrors.sessionRequired(), -32000],
  ["unsupportedMediaType", protocolErrors.unsupportedMediaType(), -32000],
];

describe("each JSON-RPC error's wire shape", () => {
  for (const [name, error, code] of CODES) {
    it(`${name}: code ${code}, one line {jsonrpc, id, error: {code, message[, data]}}`, () => {
      assert.ok(error instanceof ProtocolError);
      const text = protocolErrors.errorAnswerText(error, 7);
      assert.ok(!text.includes("\n"));
      const answer: unknown = JSON.parse(text);
      assert.deepEqual(Object.keys(answer as object), ["jsonrpc", "id", "error"]);
      assert.deepEqual(answer, {
        jsonrpc: "2.0",
        id: 7,
        error: {
          code,
          message: error.message,
          ...(error.data !== undefined && { data: error.data }),
        },
      });
    });
  }

  it("an answer with no request to answer has a null id", () => {
    assert.equal(
      protocolErrors.errorAnswerText(protocolErrors.parseError()),
      '{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error: the request body is not JSON"}}',
    );
  });
});

/** 1 MiB: what a client may put in any field a refusal quotes. */
const HUGE = "x".repeat(2 ** 20);
const HUGE_ERRORS = Array.from({ length: 1000 }, () => ({ field: HUGE, message: HUGE }));

/** Each refusal given the longest input a client can send, in every place it echoes one. */
const HUGE_INPUTS: readonly (readonly [name: string, error: ProtocolError])[] = [
  ["resourceNotFound", protocolErrors.resourceNotFound(HUGE)],
  ["invalidUri", protocolErrors.invalidUri(HUGE, HUGE_ERRORS)],
  ["unknownTool", protocolErrors.unknownTool(HUGE)],
  ["staleCursor", protocolErrors.staleCursor(HUGE)],
  ["invalidCursor", protocolErrors.invalidCursor(HUGE)],
  ["unknownPrompt", protocolErrors.unknownPrompt({ name: HUGE, extra: HUGE } as { name: string })],
  [
    "unknownTemplate",
    protocolErrors.unknownTemplate({ uri: HUGE, extra: HUGE } as { uri: string }),
  ],
  ["unknownVariable", protocolErrors.unknownVariable({ uri: "app://t/{id}" }, HUGE, ["id"])],
  ["invalidRequestParams", protocolErrors.invalidRequestParams("tools/call", HUGE_ERRORS)],
  ["commandFailed", protocolErrors.commandFailed(new Error(HUGE))],
  ["headerMismatch", protocolErrors.headerMismatch("uri", HUGE, HUGE)],
  ["hostRefused", protocolErrors.hostRefused(HUGE)],
  ["originRefused", protocolErrors.originRefused(HUGE)],
  ["sessionNotFound", protocolErrors.sessionNotFound(HUGE)],
];

describe(`no error answer is longer than MAX_ERROR_ANSWER (${protocolErrors.MAX_ERROR_ANSWER}), whatever the request carried`, () => {
  for (const [name, error] of HUGE_INPUTS) {
    it(`${name}: 1 MiB in each field it quotes`, () => {
      const text = protocolErrors.errorAnswerText(error, "request-1");
      assert.ok(text.length <= protocolErrors.MAX_ERROR_ANSWER, `${text.length} characters`);
    });
  }

  for (const [name, result] of [
    ["invalidToolArguments", protocolErrors.invalidToolArguments("notes_add", HUGE_ERRORS)],
    ["toolFailed", protocolErrors.toolFailed(new Error(HUGE))],
  ] as const) {
    it(`${name}: the tool error (text and _meta) too`, () => {
      const text = JSON.stringify({ jsonrpc: "2.0", id: "request-1", result });
      assert.ok(text.length <= protocolErrors.MAX_ERROR_ANSWER, `${text.length} characters`);
    });
  }

  it("a field list names what fits, each cut, and counts the rest", () => {
    const error = protocolErrors.invalidUri("app://t/1", HUGE_ERRORS);
    assert.match(
      error.message,
      /^Invalid URI app:\/\/t\/1: x{200}… \(1048576 characters\): x{300}… \(1048576 characters\); and 999 more$/,
    );
    const { errors, more } = error.data as { errors: unknown[]; more: number };
    assert.equal(errors.length + more, HUGE_ERRORS.length);
  });
});
