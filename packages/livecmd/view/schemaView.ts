// livecmd's default view: the result drawn by its JSON Schema. A record is a definition list, an
// array of records a table, a list of values a list; labels are the schema's titles (else the
// property names, spaced), with its descriptions as their tooltips, and values are shown by their
// formats. Everything is set as text: no result can add markup to the page.

type Schema = { [keyword: string]: unknown };

/** The element showing `value`, of `schema` (`root` resolves `$ref`s). */
export function renderValue(value: unknown, schema: Schema, root: Schema): HTMLElement {
  const own = resolved(schema, root);
  if (value === null || value === undefined) return text("span", "—", "none");
  if (Array.isArray(value)) return renderArray(value, resolved(itemsOf(own), root), root);
  if (typeof value === "object") return renderRecord(value as Record<string, unknown>, own, root);
  return renderScalar(value, own);
}

function renderRecord(record: Record<string, unknown>, schema: Schema, root: Schema): HTMLElement {
  const keys = keysOf([record], schema);
  if (keys.length === 0) return text("span", "none", "none");
  const list = document.createElement("dl");
  for (const key of keys) {
    const property = propertyOf(schema, key);
    const term = text("dt", labelOf(key, property));
    if (typeof property.description === "string") term.title = property.description;
    const definition = document.createElement("dd");
    definition.append(renderValue(record[key], property, root));
    list.append(term, definition);
  }
  return list;
}

function renderArray(values: unknown[], items: Schema, root: Schema): HTMLElement {
  if (values.length === 0) return text("span", "none", "none");
  const records = values.every((value) => isRecord(value));
  if (!records) {
    const list = document.createElement("ul");
    list.className = "list";
    for (const value of values) {
      const item = document.createElement("li");
      item.append(renderValue(value, items, root));
      list.append(item);
    }
    return list;
  }
  const rows = values as Record<string, unknown>[];
  const columns = keysOf(rows, items);
  const table = document.createElement("table");
  const head = table.createTHead().insertRow();
  for (const key of columns) {
    const property = propertyOf(items, key);
    const cell = text("th", labelOf(key, property), alignOf(resolved(property, root)));
    if (typeof property.description === "string") cell.title = property.description;
    head.append(cell);
  }
  const body = table.createTBody();
  for (const row of rows) {
    const line = body.insertRow();
    for (const key of columns) {
      const property = resolved(propertyOf(items, key), root);
      const cell = line.insertCell();
      cell.className = alignOf(property);
      cell.append(renderValue(row[key], property, root));
    }
  }
  return table;
}

function renderScalar(value: unknown, schema: Schema): HTMLElement {
  if (typeof value === "boolean") return text("span", value ? "yes" : "no");
  if (typeof value === "number") return text("span", String(value));
  const string = String(value);
  if (schema.format === "date-time" && !Number.isNaN(Date.parse(string))) {
    const time = text("time", utcText(string));
    time.setAttribute("datetime", string);
    return time;
  }
  return text("span", string);
}

/** `2026-12-05 06:47:03 UTC`: one text on every machine and locale. */
export function utcText(iso: string): string {
  return `${new Date(iso).toISOString().slice(0, 19).replace("T", " ")} UTC`;
}

/**
 * The keys in the order the result has them (the command's own: a record's id first, as it
 * returns it), then the schema's properties no value has. A schema lists an intersection's or an
 * extended interface's properties in the type checker's order, which no reader chose.
 */
function keysOf(records: Record<string, unknown>[], schema: Schema): string[] {
  const keys: string[] = [];
  for (const record of records)
    for (const key of Object.keys(record)) if (!keys.includes(key)) keys.push(key);
  for (const key of Object.keys((schema.properties ?? {}) as Schema))
    if (!keys.includes(key)) keys.push(key);
  return keys;
}

function propertyOf(schema: Schema, key: string): Schema {
  const properties = (schema.properties ?? {}) as Record<string, Schema>;
  const extra = schema.additionalProperties;
  return properties[key] ?? (typeof extra === "object" && extra !== null ? (extra as Schema) : {});
}

function itemsOf(schema: Schema): Schema {
  return typeof schema.items === "object" && schema.items !== null ? (schema.items as Schema) : {};
}

/** The schema itself, through a local `$ref` and past `null` in an `anyOf` (a nullable type). */
function resolved(schema: Schema, root: Schema): Schema {
  if (typeof schema.$ref === "string" && schema.$ref.startsWith("#/")) {
    let target: unknown = root;
    for (const part of schema.$ref.slice(2).split("/"))
      target = (target as Schema | undefined)?.[part];
    return typeof target === "object" && target !== null ? resolved(target as Schema, root) : {};
  }
  const branches = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  const nonNull = branches?.filter((branch) => branch.type !== "null");
  return nonNull?.length === 1 ? { ...resolved(nonNull[0]!, root), ...titleOf(schema) } : schema;
}

function titleOf(schema: Schema): Schema {
  return {
    ...(schema.title !== undefined && { title: schema.title }),
    ...(schema.description !== undefined && { description: schema.description }),
  };
}

/** The schema's title, else the property name with its `_` as spaces and a capital first. */
function labelOf(key: string, schema: Schema): string {
  if (typeof schema.title === "string") return schema.title;
  const spaced = key.replace(/_/g, " ");
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

function alignOf(schema: Schema): string {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type];
  return types.includes("number") || types.includes("integer") ? "number" : "";
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function text(tag: string, content: string, className = ""): HTMLElement {
  const element = document.createElement(tag);
  element.textContent = content;
  if (className) element.className = className;
  return element;
}
