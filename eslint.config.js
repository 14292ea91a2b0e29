import js from "@eslint/js";
import tseslint from "typescript-eslint";
import globals from "globals";

export default tseslint.config(
  {
    ignores: [
      "dist/**",
      "dist-check/**",
      "dist-bench/**",
      "node_modules/**",
      "out/**",
      "coverage/**",
      "test/code-hacks/javascript/**",
    ],
  },
  js.configs.recommended,
  // type-aware: every TypeScript file is linted with its types (tsconfig.json through the project service)
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      globals: { ...globals.node },
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      "@typescript-eslint/switch-exhaustiveness-check": ["error", { considerDefaultExhaustiveForUnions: true }],
      "@typescript-eslint/no-explicit-any": "error",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": "error",
      eqeqeq: ["error", "smart"],
      // an \`async\` function without \`await\` is how a function that throws returns a rejected promise instead
      // (schema retrievers, detectors behind a Promise-returning interface): not a defect here
      "@typescript-eslint/require-await": "off",
    },
  },
  // plain JavaScript (bench, scripts, bin, examples, fixtures builders) has no types to check
  { files: ["**/*.js", "**/*.mjs", "**/*.cjs"], ...tseslint.configs.disableTypeChecked },
  {
    // tests read parsed JSON (`any`) on purpose and assert on it; every other type-aware rule stays on
    files: ["test/**/*.ts", "src/**/*.test.ts", "src/**/*.test-helper.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
    },
  },
);
