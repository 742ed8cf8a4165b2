// `${NAME}` in any string of an apply file is read from the environment (secrets stay out of the file);
// `$${` writes a literal `${`. Every variable missing is named before anything is compared or changed.

/** A JSON path into the file: keys and array indexes. */
export type FilePath = readonly (string | number)[];

/** What substitution did: the document with every reference replaced, and where a whole value was one reference. */
export type Substituted = {
  readonly document: unknown;
  readonly whole: readonly FilePath[];
  readonly problems: readonly { path: FilePath; message: string }[];
};

const REFERENCE = /\$\$\{|\$\{([^}]*)\}?/g;
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** Replaces every `${NAME}` in the strings of `document` with the variable's value from `env`. */
export function substituteEnv(document: unknown, env: Readonly<Record<string, string | undefined>>): Substituted {
  const whole: FilePath[] = [];
  const problems: { path: FilePath; message: string }[] = [];
  const missing = new Set<string>();
  const visit = (value: unknown, path: FilePath): unknown => {
    if (typeof value === "string") return substituteString(value, path);
    if (Array.isArray(value)) return value.map((item, i) => visit(item, [...path, i]));
    if (typeof value === "object" && value !== null) {
      return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, visit(item, [...path, key])]));
    }
    return value;
  };
  const substituteString = (text: string, path: FilePath): string => {
    if (!text.includes("${")) return text;
    if (/^\$\{[A-Za-z_][A-Za-z0-9_]*\}$/.test(text)) whole.push(path);
    return text.replace(REFERENCE, (match, name: string | undefined) => {
      if (match === "$${") return "${";
      if (!match.endsWith("}") || name === undefined || !NAME.test(name)) {
        problems.push({
          path,
          message: `${JSON.stringify(match)} is not a variable reference: write \${NAME} (letters, digits, _), or $\${ for a literal \${`,
        });
        return match;
      }
      const found = env[name];
      if (found === undefined) {
        if (!missing.has(name)) problems.push({ path, message: `the environment variable ${name} is not set` });
        missing.add(name);
        return match;
      }
      return found;
    });
  };
  const document_ = visit(document, []);
  return { document: document_, whole, problems };
}
