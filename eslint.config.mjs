// ESLint with typescript-eslint's type-aware rules over every TypeScript file (sources, tests, benchmarks):
// the rules that catch bugs (promises left floating or given where a callback's result is ignored, values
// never used, `any` flowing into typed code, objects stringified as "[object Object]"), not style.
// The build compiles with TypeScript 7, which has no JavaScript compiler API; typescript-eslint reads types
// through that API, so here (and only here) `typescript` means TypeScript 6 (the devDependency typescript6).
import Module from "node:module";

const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  return resolveFilename.call(this, /^typescript(\/|$)/.test(request) ? request.replace(/^typescript/, "typescript6") : request, ...rest);
};
const { default: js } = await import("@eslint/js");
const { default: tseslint } = await import("typescript-eslint");

export default tseslint.config(
  { ignores: ["dist/", "node_modules/", "coverage/", "reports/", ".stryker-tmp/"] },
  {
    files: ["**/*.ts"],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    linterOptions: { reportUnusedDisableDirectives: "error" },
    rules: {
      // a value left out of a copy by destructuring (`const { key: _key, ...rest } = record`) is the point
      "@typescript-eslint/no-unused-vars": [
        "error",
        {
          ignoreRestSiblings: true,
          argsIgnorePattern: "^_",
          varsIgnorePattern: "^_",
          destructuredArrayIgnorePattern: "^_",
          caughtErrors: "none",
        },
      ],
      // an async function without await still returns a promise, which the promise rules above follow: style only
      "@typescript-eslint/require-await": "off",
      // control characters in the expressions that strip them from untrusted text are the point
      "no-control-regex": "off",
    },
  },
  {
    // tests and benchmarks read JSON answers as `any` and hand methods to assertions on purpose; an
    // assertion on the wrong field fails anyway. The bug rules (promises, unused values) stay on.
    files: ["test/**/*.ts", "bench/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unsafe-assignment": "off",
      "@typescript-eslint/no-unsafe-member-access": "off",
      "@typescript-eslint/no-unsafe-call": "off",
      "@typescript-eslint/no-unsafe-argument": "off",
      "@typescript-eslint/no-unsafe-return": "off",
      "@typescript-eslint/unbound-method": "off",
      "@typescript-eslint/restrict-template-expressions": "off",
    },
  },
);
