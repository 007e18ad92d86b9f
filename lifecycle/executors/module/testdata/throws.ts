import { explode } from "./_explode.ts";

export default {
  work_item_start(): null {
    explode("roster unreachable");
    return null;
  },
};
