// Its top level never finishes: a busy loop before the module is done evaluating.
// deno-lint-ignore no-empty
while (Date.now() > 0) {}

export default {
  work_item_start() {
    return { proceed: true };
  },
};
