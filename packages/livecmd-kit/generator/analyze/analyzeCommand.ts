import { Node, type ParameterDeclaration } from "ts-morph";
import type { CommandDecl, ParamDecl } from "../model.ts";
import { diagnosticAt, DiagnosticError, locationOf } from "../discover/locate.ts";
import type { CommandSyntax } from "../discover/readCommand.ts";
import { withConstraintTags } from "./constraintTags.ts";
import { withExampleTags } from "./exampleTags.ts";
import { resultSchema } from "./resultSchema.ts";
import { typeToSchema } from "./typeToSchema.ts";

/** A command's parameters and result as JSON Schemas, with the docs that describe them. */
export function analyzeCommand(command: CommandSyntax, granted: boolean): CommandDecl {
  if (!command.description) {
    throw new DiagnosticError(
      diagnosticAt(
        command.declaration,
        "CG008",
        `command "${command.name}" has no JSDoc summary; hosts show it to people choosing what to read. Add /** One sentence saying what it returns. */ above it`,
      ),
    );
  }
  return {
    name: command.name,
    live: command.live,
    confirm: command.confirm,
    granted,
    ...(command.title !== undefined && { title: command.title }),
    annotations: command.annotations,
    description: command.description,
    mimeType: command.mimeType,
    params: command.params.map((param) => analyzeParam(command, param)),
    result: resultSchema(command),
    ...(command.view && { view: command.view }),
    location: command.location,
  };
}

function analyzeParam(command: CommandSyntax, param: ParameterDeclaration): ParamDecl {
  const nameNode = param.getNameNode();
  if (!Node.isIdentifier(nameNode)) {
    throw new DiagnosticError(
      diagnosticAt(
        param,
        "CG003",
        `a parameter of command "${command.name}" is destructured; name it (e.g. query: CustomerQuery), since its name is the tool argument's name`,
      ),
    );
  }
  const name = nameNode.getText();
  const typeNode = param.getTypeNode();
  if (!typeNode) {
    throw new DiagnosticError(
      diagnosticAt(
        param,
        "CG003",
        `parameter "${name}" of command "${command.name}" has no type annotation; write its type (e.g. ${name}: string), since the published schema comes from it`,
      ),
    );
  }
  const schema = typeToSchema(param.getType(), {
    node: param,
    typeNode,
    describe: `parameter "${name}" of command "${command.name}"`,
  });
  const doc = command.paramDocs.get(name);
  const tags = command.paramTags.get(name) ?? [];
  const site = { describe: `parameter "${name}" of command "${command.name}"` };
  const constrained = withConstraintTags(schema, tags, site);
  return {
    name,
    optional: param.hasQuestionToken() || param.hasInitializer(),
    typeText: typeNode.getText(),
    schema: withExampleTags(doc ? { ...constrained, description: doc } : constrained, tags, site),
    location: locationOf(param),
  };
}
