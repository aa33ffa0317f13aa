// graphql-codegen configuration: resolver and context types generated from schema.graphql (the single
// source of the GraphQL surface). Run by `npm run generate` (postinstall); the output is committed and CI
// fails when it differs from what schema.graphql generates.
const config = {
  overwrite: true,
  schema: "schema.graphql",
  generates: {
    "src/generated/graphql.ts": {
      plugins: ["typescript", "typescript-resolvers"],
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { DateTime: "string", JSON: "Record<string, unknown>" },
        contextType: "../graphql/context.ts#GraphQLContext",
        // A connection's totalCount is a second query, run only when the field is selected.
        // Order.timeline is read only when selected (its own resolver).
        mappers: {
          OrderConnection: "../graphql/order-mapper.ts#OrderConnectionSource",
          Order: "../graphql/order-mapper.ts#OrderSource",
        },
      },
    },
  },
};

export default config;
