/**
 * Checking a frame that arrived against its definition. The tables (`SHAPES` in message-shapes.gen.ts) are
 * generated from runtime/host/messages.py by scripts/gen_protocol.py, so what this checks and what the
 * generated types promise cannot drift apart. Unknown fields are ignored (forward compatible).
 */

import { isJsonObject, type JsonObject } from "./codec";

/** A field's expected value (the JSON form of a Python type hint). */
export type Schema =
  | "string"
  | "number"
  | "integer"
  | "boolean"
  | "null"
  | "unknown"
  | { literal: readonly (string | number | boolean)[] }
  | { list: Schema }
  | { map: Schema }
  | { anyOf: readonly Schema[] }
  | { shape: string }
  | { tag: string; shapes: Readonly<Record<string, string>> };

export interface FieldSpec {
  schema: Schema;
  required: boolean;
}
export type FieldTable = Readonly<Record<string, FieldSpec>>;
export type Shapes = Readonly<Record<string, FieldTable>>;

/** What is wrong with `value` as an instance of `table` ("missing field 'id'"), or null when nothing is. */
export function fieldProblem(value: JsonObject, table: FieldTable, shapes: Shapes): string | null {
  for (const [name, spec] of Object.entries(table)) {
    if (!Object.hasOwn(value, name)) {
      if (spec.required) return `missing field '${name}'`;
      continue;
    }
    if (!conforms(value[name], spec.schema, shapes)) return `field '${name}' is not ${describe(spec.schema)}`;
  }
  return null;
}

function conforms(value: unknown, schema: Schema, shapes: Shapes): boolean {
  switch (schema) {
    case "string":
      return typeof value === "string";
    case "number":
      return typeof value === "number" && Number.isFinite(value);
    case "integer":
      return Number.isInteger(value);
    case "boolean":
      return typeof value === "boolean";
    case "null":
      return value === null;
    case "unknown":
      return true;
  }
  if ("literal" in schema) return schema.literal.some((v) => v === value);
  if ("list" in schema) return Array.isArray(value) && value.every((v) => conforms(v, schema.list, shapes));
  if ("map" in schema) return isJsonObject(value) && Object.values(value).every((v) => conforms(v, schema.map, shapes));
  if ("anyOf" in schema) return schema.anyOf.some((s) => conforms(value, s, shapes));
  if ("shape" in schema) return isShape(value, schema.shape, shapes);
  if (!isJsonObject(value)) return false;
  const tag = value[schema.tag];
  return (
    typeof tag === "string" && Object.hasOwn(schema.shapes, tag) && isShape(value, schema.shapes[tag] ?? "", shapes)
  );
}

function isShape(value: unknown, name: string, shapes: Shapes): boolean {
  const table = shapes[name];
  return table !== undefined && isJsonObject(value) && fieldProblem(value, table, shapes) === null;
}

const PLURAL: Readonly<Record<string, string>> = { unknown: "values", null: "nulls" };

function describe(schema: Schema): string {
  if (schema === "unknown") return "a value";
  if (typeof schema === "string") return `a ${schema}`;
  if ("literal" in schema) return `one of ${schema.literal.map((v) => JSON.stringify(v)).join(", ")}`;
  if ("list" in schema) return `a list of ${items(schema.list)}`;
  if ("map" in schema) return `an object of ${items(schema.map)}`;
  if ("anyOf" in schema) return schema.anyOf.map(describe).join(" or ");
  if ("shape" in schema) return `a ${schema.shape}`;
  return `an object with a known '${schema.tag}'`;
}

function items(schema: Schema): string {
  if (typeof schema === "string") return PLURAL[schema] ?? `${schema}s`;
  return `items that are each ${describe(schema)}`;
}
