// A Matrix room alias is resolved to its room id when the integration is saved, as the reference does
// (POST /_matrix/client/v3/join/<alias> as the server's account): the admin API and the dashboard store
// the id, and notifications go to /rooms/<id>/; a join the homeserver refuses is the field's error.
import { test } from "uvu";
import * as assert from "uvu/assert";
import { httpReceiver } from "../notify/receivers.ts";
import type { Answer } from "../notify/receivers.ts";
import { session } from "../dashboard/form-session.ts";
import { ADMIN_TOKEN, withServedApi } from "./harness.ts";

test("an alias is joined once when saved, its room id kept and used; a refused join is the field's error", async () => {
  const homeserver = await httpReceiver((request): Answer => {
    if (request.path === "/_matrix/client/v3/join/%23ops%3Aexample.org")
      return { status: 200, body: JSON.stringify({ room_id: "!abcDEF:example.org" }) };
    if (request.path.startsWith("/_matrix/client/v3/join/")) return { status: 403, body: JSON.stringify({ errcode: "M_FORBIDDEN" }) };
    return { status: 200, body: "{}" };
  });
  try {
    await withServedApi(
      async (api, base) => {
        const channels = `/admin/v1/projects/${api.project.id}/channels`;
        const added = await api.admin("POST", channels, { kind: "matrix", name: "ops room", value: { room_id: "#ops:example.org" } });
        assert.is(added.status, 201, added.text);
        const join = homeserver.requests[0];
        assert.equal(
          [join.method, join.path, join.headers.authorization],
          ["POST", "/_matrix/client/v3/join/%23ops%3Aexample.org", "Bearer mx-token"],
        );
        const refused = await api.admin("POST", channels, { kind: "matrix", value: { room_id: "#closed:example.org" } });
        assert.equal(
          [refused.status, (refused.json as { error: string }).error],
          [
            400,
            "json validation error: value.room_id Matrix server returned status 403 (Forbidden). Did you invite the account of MATRIX_ACCESS_TOKEN to the room?",
          ],
        );
        // the dashboard's Test goes to the room id
        const admin = await session(base, ADMIN_TOKEN);
        const id = (added.json as { id: string }).id;
        assert.is((await admin.post(`/projects/${api.project.id}/integrations/${id}/test`, {})).status, 303);
        const sent = homeserver.requests.find((r) => r.method === "PUT");
        assert.match(sent?.path ?? "", /^\/_matrix\/client\/v3\/rooms\/!abcDEF%3Aexample\.org\/send\/m\.room\.message\/[0-9a-f]{40}$/);
        // the dashboard's own form resolves an alias too
        const before = homeserver.requests.length;
        const viaForm = await admin.post(`/projects/${api.project.id}/integrations`, {
          kind: "matrix",
          name: "",
          form: "fields",
          "f.room_id": "#ops:example.org",
        });
        assert.is(viaForm.status, 303, viaForm.text);
        assert.is(homeserver.requests[before]?.path, "/_matrix/client/v3/join/%23ops%3Aexample.org");
      },
      { env: { MATRIX_HOMESERVER: homeserver.url, MATRIX_ACCESS_TOKEN: "mx-token" } },
    );
  } finally {
    await homeserver.close();
  }
});

test.run();
