// Every notification kind beyond the first five, by its name (engine/model.ts SERVICE_KINDS): adding a
// kind is its module here plus its name there.
import type { ServiceKind } from "../../engine/model.ts";
import type { ServiceKindModule } from "./kind.ts";
import { googlechat } from "./googlechat.ts";
import { gotify } from "./gotify.ts";
import { matrix } from "./matrix.ts";
import { msteamsw } from "./msteamsw.ts";
import { opsgenie } from "./opsgenie.ts";
import { pd } from "./pd.ts";
import { po } from "./po.ts";
import { telegram } from "./telegram.ts";

export const SERVICE_KIND_MODULES: Readonly<Record<ServiceKind, ServiceKindModule>> = {
  telegram, msteamsw, pd, po, gotify, matrix, googlechat, opsgenie,
};
