// deno-lint-ignore-file no-import-prefix no-unversioned-import
import { parse } from "npm:yaml";

export default { work_item_start: () => ({ reason: String(parse("a: 1")) }) };
