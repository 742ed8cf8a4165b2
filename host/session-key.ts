// The key a dashboard session is kept and named under, in memory, in DATA_DIR and in a cluster's bucket:
// the SHA-256 of its id (persistence/session-file.ts), so no store holds the cookie that opens it.
export { sessionKeyOf } from "../persistence/session-file.ts";
