// Every notification kind beyond the first five, by its name (engine/model.ts SERVICE_KINDS): adding a
// kind is its module here plus its name there.
import type { ServiceKind } from "../../engine/model.ts";
import type { ServiceKindModule } from "./kind.ts";
import { alertmanager } from "./alertmanager.ts";
import { apprise } from "./apprise.ts";
import { github } from "./github.ts";
import { googlechat } from "./googlechat.ts";
import { group } from "./group.ts";
import { gotify } from "./gotify.ts";
import { matrix } from "./matrix.ts";
import { mattermost } from "./mattermost.ts";
import { msteamsw } from "./msteamsw.ts";
import { opsgenie } from "./opsgenie.ts";
import { pagertree } from "./pagertree.ts";
import { pd } from "./pd.ts";
import { po } from "./po.ts";
import { pushbullet } from "./pushbullet.ts";
import { rocketchat } from "./rocketchat.ts";
import { shell } from "./shell.ts";
import { signal } from "./signal.ts";
import { spike } from "./spike.ts";
import { telegram } from "./telegram.ts";
import { trello } from "./trello.ts";
import { call, sms, whatsapp } from "./twilio.ts";
import { victorops } from "./victorops.ts";
import { zulip } from "./zulip.ts";

export const SERVICE_KIND_MODULES: Readonly<Record<ServiceKind, ServiceKindModule>> = {
  telegram,
  msteamsw,
  pd,
  po,
  gotify,
  matrix,
  googlechat,
  opsgenie,
  mattermost,
  rocketchat,
  zulip,
  pushbullet,
  victorops,
  pagertree,
  spike,
  shell,
  github,
  trello,
  sms,
  whatsapp,
  call,
  apprise,
  group,
  signal,
  alertmanager,
};
