// graphql-codegen configuration: everything typed from schema.graphql (the single source of the GraphQL surface).
// Run by `npm run generate` (postinstall).
// - src/generated/graphql.ts: the server's resolver and context types; committed, and CI fails when it is stale.
// - console/src/gql/: the console's typed `graphql()` function and documents (client preset), generated from the
//   operations written next to the console's components; git-ignored, regenerated before every console build.
import { addTypenameSelectionDocumentTransform } from "@graphql-codegen/client-preset";

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
          // Store connections resolve their fields (enums, activity) from the domain's view.
          StoreConnection: "../domain/stores/store.service.ts#StoreConnectionView",
        },
      },
    },
    "console/src/gql/": {
      preset: "client",
      documents: ["console/src/**/*.tsx", "console/src/**/*.ts", "!console/src/gql/**"],
      // urql's document cache reads __typename; the hashed documents must carry it, since the server runs those.
      documentTransforms: [addTypenameSelectionDocumentTransform],
      // persistedDocuments: every operation gets its sha256 (document.__meta__.hash) and persisted-documents.json
      // maps hash → document; the build ships it as console/dist/trusted-documents.json for the server.
      presetConfig: { fragmentMasking: false, persistedDocuments: { hashAlgorithm: "sha256" } },
      config: {
        useTypeImports: true,
        enumsAsTypes: true,
        scalars: { DateTime: "string", JSON: "Record<string, unknown>" },
      },
    },
  },
};

export default config;
