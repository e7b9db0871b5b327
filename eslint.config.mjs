import js from "@eslint/js";
import globals from "globals";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: [
      "node_modules/",
      ".next/",
      "dist/",
      "src/generated/",
      "bench/results/",
      "test-results/",
      "playwright-report/",
      "next-env.d.ts",
      "fixtures/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
    },
  },
  {
    // The worker never touches the database or Next.js: the web process is the single writer.
    files: ["worker/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: ["**/generated/prisma/**", "**/db/client", "**/*.queries", "next", "next/*", "@prisma/*"],
              message: "The worker reports through Redis; only the web process uses the database.",
            },
          ],
        },
      ],
    },
  },
  {
    // dockerode stays behind the runtime interface.
    files: ["src/**/*.ts", "src/**/*.tsx", "worker/**/*.ts"],
    ignores: ["src/server/runtime/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        { paths: [{ name: "dockerode", message: "Use the ContainerRuntime interface in src/server/runtime/." }] },
      ],
    },
  },
  {
    files: ["**/*.mjs", "**/*.cjs"],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: { ...tseslint.configs.disableTypeChecked.languageOptions, globals: globals.node },
  },
  {
    files: ["**/*.cjs"],
    languageOptions: { sourceType: "commonjs" },
    rules: { "@typescript-eslint/no-require-imports": "off" },
  },
);
