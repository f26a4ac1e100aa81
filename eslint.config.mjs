// The code's guard rails, after Effect-TS/examples' templates/basic: ESLint's and typescript-eslint's
// recommended rules, and formatting by dprint through @effect/eslint-plugin (no semicolons, double quotes).
// `npm test` runs it; `npm run lint -- --fix` formats.
import effect from "@effect/eslint-plugin"
import js from "@eslint/js"
import tseslint from "typescript-eslint"

export default tseslint.config(
  { ignores: ["node_modules/**", "dist/**", "test-artifacts/**", ".propscore/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...effect.configs.dprint,
  {
    files: ["**/*.mjs", "**/*.cjs"],
    languageOptions: { globals: { URL: "readonly", console: "readonly", process: "readonly", module: "writable" } }
  },
  {
    languageOptions: { ecmaVersion: 2022, sourceType: "module" },
    rules: {
      "no-fallthrough": "off",
      "no-irregular-whitespace": "off",
      // Control characters are matched on purpose (refused in keys, names and addresses).
      "no-control-regex": "off",
      "object-shorthand": "error",
      "prefer-destructuring": "off",
      "no-restricted-syntax": ["error", {
        selector: "CallExpression[callee.property.name='push'] > SpreadElement.arguments",
        message: "Do not use spread arguments in Array.push"
      }],
      "no-unused-vars": "off",
      "prefer-rest-params": "off",
      "prefer-spread": "off",
      "@typescript-eslint/array-type": ["error", { default: "generic", readonly: "generic" }],
      "@typescript-eslint/no-non-null-assertion": "off",
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-empty-object-type": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/no-namespace": "off",
      "@effect/dprint": ["error", {
        config: {
          indentWidth: 2,
          lineWidth: 120,
          semiColons: "asi",
          quoteStyle: "alwaysDouble",
          trailingCommas: "never",
          operatorPosition: "maintain",
          "arrowFunction.useParentheses": "force"
        }
      }]
    }
  }
)
