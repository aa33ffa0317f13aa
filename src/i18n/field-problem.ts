/**
 * A problem with one field of a request, as a catalogue key and parameters that each transport phrases in the
 * caller's language. Here rather than in the domain, so the catalogue (which produces these from zod issues) does
 * not depend on the domain; the domain's ValidationError carries them.
 */
export interface FieldProblem {
  /** Dotted path with indexes, e.g. `items[0].quantity`. */
  field: string;
  /** Catalogue key and parameters, localised by the transport. */
  key: string;
  params?: Record<string, string | number>;
}
