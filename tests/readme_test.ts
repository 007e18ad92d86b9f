/**
 * Holds the README to the code: every `deno task X` it shows is a task in deno.json, every
 * `the-loop <command ...>` it shows is a registered command, and it states the prerequisite and
 * the test command first.
 */
import assert from "node:assert/strict";
import type { Command } from "commander";
import denoJson from "../deno.json" with { type: "json" };
import { buildProgram } from "../commands/mod.ts";
import { silentContext } from "../commands/context.ts";

const readme = await Deno.readTextFile(new URL("../README.md", import.meta.url));
const tasks = Object.keys(denoJson.tasks);

function program(): Command {
  return buildProgram(silentContext());
}

Deno.test("every `deno task X` in the README is a task in deno.json", () => {
  const named = [...readme.matchAll(/deno task (?:-q )?([a-z][\w:-]*)/g)].map((m) => m[1]);
  assert.ok(named.length > 0);
  for (const t of named) assert.ok(tasks.includes(t), `README names a missing task: ${t}`);
});

Deno.test("every `the-loop <command>` in the README is a registered command", () => {
  const root = program();
  const lines = [...readme.matchAll(/deno task -q the-loop ((?:[a-z][a-z-]*\s?)+)/g)].map((m) =>
    m[1].trim().split(/\s+/)
  );
  assert.ok(lines.length > 0);
  for (const words of lines) {
    let cmd = root;
    for (const w of words) {
      const sub = cmd.commands.find((c) => c.name() === w);
      if (!sub) break; // the rest are arguments
      cmd = sub;
    }
    assert.notEqual(cmd, root, `README shows an unknown command: the-loop ${words.join(" ")}`);
  }
});

Deno.test("the README states the prerequisite and the test command before anything else", () => {
  const prereq = readme.indexOf("## Prerequisite");
  const commands = readme.indexOf("## Commands");
  assert.ok(prereq > 0 && commands > prereq);
  assert.match(readme.slice(prereq, commands), /npm install -g deno@2\.9\.6/);
  assert.match(readme.slice(commands), /`deno task test`[^\n]*\*\*the test command\*\*/);
  assert.ok(readme.indexOf("## Quickstart") > commands);
});

Deno.test("the README runs the CLI quietly and its install line has the task's flags", () => {
  assert.doesNotMatch(readme, /deno task the-loop/, "use `deno task -q the-loop`");
  const install = readme.match(/deno install -g -f -n the-loop [^`]*?main\.ts/)?.[0];
  assert.ok(install, "the README shows how to install a `the-loop` command");
  const words = install.replaceAll("\\\n", " ").split(/\s+/);
  const taskFlags = denoJson.tasks["the-loop"].split(/\s+/).filter((w) => w.startsWith("-"));
  for (const flag of taskFlags) assert.ok(words.includes(flag), `install line lacks ${flag}`);
});
