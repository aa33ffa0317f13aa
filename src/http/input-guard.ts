import type { FastifyRequest } from "fastify";
import { ValidationError } from "../domain/errors.ts";
import { findInputProblem } from "../domain/storable.ts";
import { fieldPath } from "../i18n/zod-issues.ts";

/**
 * preValidation for every REST route: a NUL character or an unpaired surrogate anywhere in the query string or
 * a JSON body is a 400 VALIDATION_ERROR naming the field, because PostgreSQL cannot store it (and a route added later cannot forget
 * the check). Path parameters are not checked here: a malformed `{id}` is a 404 (SPEC §3), which the services
 * answer before any query (ids are UUIDs), and a /docs path that is not a file is a 404 too. GraphQL checks its
 * own variables and literals (src/graphql/input-checks.ts).
 */
export function refuseUnstorableInput(skipRoute: (url: string | undefined) => boolean) {
  return async (request: FastifyRequest): Promise<void> => {
    if (skipRoute(request.routeOptions.url)) return;
    for (const part of [request.query, request.body]) {
      const problem = findInputProblem(part);
      if (problem) {
        const error = new ValidationError([{ field: fieldPath(problem.path), key: `field.text.${problem.kind}` }]);
        throw Object.assign(error, { statusCode: 400 });
      }
    }
  };
}
