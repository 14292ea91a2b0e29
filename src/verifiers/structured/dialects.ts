/** Dialect names accepted by the `json-schema` verifier's `defaultDialect` option, and their meta-schema URIs. */
export const DIALECTS = {
  "2020-12": "https://json-schema.org/draft/2020-12/schema",
  "2019-09": "https://json-schema.org/draft/2019-09/schema",
  "draft-07": "http://json-schema.org/draft-07/schema",
  "draft-06": "http://json-schema.org/draft-06/schema",
  "draft-04": "http://json-schema.org/draft-04/schema",
} as const;
export type DialectName = keyof typeof DIALECTS;
