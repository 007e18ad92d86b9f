// Its top level never finishes: it awaits a promise that never settles.
await new Promise(() => {});

export default {
  work_item_start() {
    return { proceed: true };
  },
};
