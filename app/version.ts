// hcd's release version: package.json's "version", read once (shown by `hcd --version` and the
// X-Hcd-Version header of /api/v3/status/; the image's label and tag carry the same).
import { readFileSync } from "node:fs";

/** The version of this release, from the package.json beside dist/ (or the sources). */
export const VERSION: string = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string })
  .version;
