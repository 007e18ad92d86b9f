/** The demo's config reads strictly through the real loader, routed at the fake. */
import assert from "node:assert/strict";
import { join } from "node:path";
import { loadConfig } from "../config/mod.ts";
import { loopsOfConfig } from "../dispatch/mod.ts";
import { DEMO_LOOP, demoConfig } from "./config.ts";

Deno.test("the demo's config reads strictly, routed at the fake, with its loop", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const path = join(dir, ".the-loop", "cli-config.yaml");
    await Deno.mkdir(join(dir, ".the-loop"));
    await Deno.writeTextFile(
      path,
      demoConfig({ apiUrl: "http://127.0.0.1:4321", runner: "tmux", uiPort: 9999 }),
    );
    const { config } = await loadConfig({ flag: path, env: () => undefined, cwd: dir });
    const routing = config.webhooks.ghWebhook.routing;
    assert.equal(config.github.apiUrl, "http://127.0.0.1:4321");
    assert.deepEqual(routing.authorizedUsers, ["you"]);
    assert.equal(routing.workspace.remote, "http://127.0.0.1:4321/{owner}/{repo}.git");
    assert.equal(routing.harnessTrust.enabled, false);
    assert.equal(routing.loop, DEMO_LOOP);
    assert.equal(config.polling.intervalSeconds, 1);
    const loop = loopsOfConfig(config).get(DEMO_LOOP);
    assert.deepEqual(Object.keys(loop?.nodes ?? {}), ["work", "review", "done"]);
    assert.deepEqual(
      [config.ui.enabled, config.ui.host, config.ui.port],
      [true, "127.0.0.1", 9999],
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
