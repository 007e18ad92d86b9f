import assert from "node:assert/strict";
import { tableRow, TableStream } from "./mod.ts";
import { table } from "../terminal.ts";

const HEADERS = ["a", "bb", "c"];
const ROWS = [
  ["x", "y", "tail one"],
  ["long-cell", "z", "tail two"],
  ["q", "wider-cell", ""],
];

function stream(sizeRows: number, rows: string[][], flushAt = rows.length): string[] {
  const writes: string[] = [];
  const t = new TableStream({ write: (s) => writes.push(s), headers: HEADERS, sizeRows });
  rows.forEach((r, i) => {
    if (i === flushAt) t.flush();
    t.row(r);
  });
  t.flush();
  return writes;
}

Deno.test("TableStream: with every row held it prints what table() prints", () => {
  assert.equal(stream(100, ROWS).join(""), table(HEADERS, ROWS));
  assert.equal(stream(3, ROWS).join(""), table(HEADERS, ROWS));
  assert.deepEqual(stream(100, []), []); // no rows, no header
});

Deno.test("TableStream: rows after the first sizeRows print at once, padded to their widths", () => {
  const writes = stream(2, ROWS);
  // header and the first two rows in one write, sized from them; the third on its own
  assert.deepEqual(writes, [
    "a          bb  c\nx          y   tail one\nlong-cell  z   tail two\n",
    "q          wider-cell\n",
  ]);
  const rows = [...ROWS, ["p", "s", "t"]];
  assert.equal(stream(2, rows).at(-1), "p          s   t\n");
});

Deno.test("TableStream: flush() goes live; with nothing held the next row sizes the columns", () => {
  // a --follow table: the query found 1 row, later rows print as they come
  assert.deepEqual(stream(100, ROWS, 1), [
    "a  bb  c\nx  y   tail one\n",
    "long-cell  z   tail two\n",
    "q  wider-cell\n",
  ]);
  // the query found nothing: the first followed row prints with the header
  assert.deepEqual(stream(100, ROWS.slice(0, 2), 0), [
    "a  bb  c\nx  y   tail one\n",
    "long-cell  z   tail two\n",
  ]);
});

Deno.test("tableRow makes every control character in a record visible, keys and types too", () => {
  const row = tableRow({
    ts: "2026-07-22T10:00:00.000Z\r",
    level: "warning",
    source: "hooks\x9b31m",
    event: "hooks.refused\u202e",
    pid: 1,
    work_item: "acme/app#1\x1b[2J",
    hook: "\x1b]52;c;ZXZpbA\x07",
    "k\x1bey": "a\nb",
    reason: "failed\rpassed \x9b2J",
  });
  assert.deepEqual(row, [
    "2026-07-22T10:00:00.000Z\\r",
    "warning",
    "hooks\\x9b31m",
    "hooks.refused\\u{202e}",
    "acme/app#1\\e[2J",
    'hook=\\e]52;c;ZXZpbA\\x07 k\\eey="a\\nb" reason="failed\\rpassed \\x9b2J"',
  ]);
  // the summary's caps apply to what is shown
  const long = tableRow({
    ts: "t",
    level: "info",
    source: "s",
    event: "e",
    pid: 1,
    v: "\x07".repeat(60),
  });
  assert.equal(long[5], "v=" + "\\x07".repeat(9) + "\\x0…");
});
