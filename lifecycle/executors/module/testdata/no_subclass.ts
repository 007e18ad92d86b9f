export const helper = 1;
export function work_item_start() {
  return null;
}
