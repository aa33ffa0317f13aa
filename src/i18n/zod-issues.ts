import type { core } from "zod";
import type { FieldProblem } from "./field-problem.ts";

/** `items[0].quantity` from ["items", 0, "quantity"]. */
export function fieldPath(path: readonly PropertyKey[], root?: string): string {
  let out = root ?? "";
  for (const part of path) {
    if (typeof part === "number") out += `[${part}]`;
    else out += out ? `.${String(part)}` : String(part);
  }
  return out || (root ?? "body");
}

/** Turns a zod issue into a catalogue key and parameters, so each language can phrase it. */
export function problemFromIssue(issue: core.$ZodIssue, root?: string): FieldProblem {
  const field = fieldPath(issue.path, root);
  // A request with no body at all reaches validation as null or undefined.
  const input = (issue as { input?: unknown }).input;
  if (issue.code === "invalid_type" && (input === undefined || (input === null && issue.path.length === 0))) {
    return { field, key: "field.required" };
  }
  if (issue.message?.startsWith("i18n:")) {
    if (issue.code === "invalid_type" && (issue as { input?: unknown }).input === undefined) {
      return { field, key: "field.required" };
    }
    // Custom issues may carry parameters for their text (e.g. the allowed range of a delay).
    const params = issue.code === "custom" ? (issue.params as FieldProblem["params"] | undefined) : undefined;
    return params ? { field, key: `field.${issue.message.slice(5)}`, params } : { field, key: `field.${issue.message.slice(5)}` };
  }
  switch (issue.code) {
    case "invalid_type": {
      if ((issue as { input?: unknown }).input === undefined) return { field, key: "field.required" };
      const expected = issue.expected === "int" ? "integer" : issue.expected;
      return { field, key: `field.type.${expected}`, params: { expected } };
    }
    case "too_small": {
      const min = Number(issue.minimum);
      if (issue.origin === "string") return { field, key: "field.string.min", params: { min } };
      if (issue.origin === "array" || issue.origin === "set") return { field, key: "field.array.min", params: { min } };
      return { field, key: issue.inclusive ? "field.number.gte" : "field.number.gt", params: { min } };
    }
    case "too_big": {
      const max = Number(issue.maximum);
      if (issue.origin === "string") return { field, key: "field.string.max", params: { max } };
      if (issue.origin === "array" || issue.origin === "set") return { field, key: "field.array.max", params: { max } };
      return { field, key: issue.inclusive ? "field.number.lte" : "field.number.lt", params: { max } };
    }
    case "invalid_value":
      return { field, key: "field.enum", params: { values: issue.values.map(String).join(", ") } };
    case "unrecognized_keys":
      return { field: fieldPath([...issue.path, issue.keys[0] ?? ""], root), key: "field.unknown" };
    case "invalid_format":
      return { field, key: issue.format === "datetime" ? "field.format.datetime" : "field.invalid" };
    default:
      return { field, key: "field.invalid" };
  }
}
