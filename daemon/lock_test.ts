import assert from "node:assert/strict";
import { join } from "node:path";
import { DaemonLock, LockHeldError, lockHolder } from "./lock.ts";
import { describeStop, stopDaemon } from "./stop.ts";
import { holdLock } from "./_test_utils.ts";

const tmp = () => Deno.makeTempDirSync({ prefix: "the-loop-lock-" });

Deno.test("a second instance is refused, naming the holder's pid", async () => {
  const pidfile = join(tmp(), "run", "poll.pid");
  const holder = await holdLock(pidfile);
  try {
    await DaemonLock.acquire(pidfile).then(
      () => assert.fail("acquired a held lock"),
      (e) => {
        assert.ok(e instanceof LockHeldError);
        assert.equal(e.pid, holder.pid);
        assert.match(e.message, new RegExp(`pid ${holder.pid}`));
      },
    );
    assert.deepEqual(await lockHolder(pidfile), { pid: holder.pid, live: true, exists: true });
  } finally {
    holder.kill("SIGKILL");
    await holder.status;
  }
});

Deno.test("a pidfile left by a SIGKILLed holder does not block a start", async () => {
  const pidfile = join(tmp(), "poll.pid");
  const holder = await holdLock(pidfile);
  holder.kill("SIGKILL");
  await holder.status;
  assert.equal((await lockHolder(pidfile)).live, false);
  assert.equal((await lockHolder(pidfile)).pid, holder.pid); // the file is still there
  const lock = await DaemonLock.acquire(pidfile);
  assert.equal(Deno.readTextFileSync(pidfile).trim(), String(Deno.pid));
  await lock.release();
  assert.equal((await lockHolder(pidfile)).exists, false);
});

Deno.test("a forged pid in a pidfile nobody locks is not alive", async () => {
  const pidfile = join(tmp(), "poll.pid");
  Deno.writeTextFileSync(pidfile, `${Deno.pid}\n`); // a live pid, but no lock
  assert.deepEqual(await lockHolder(pidfile), { pid: Deno.pid, live: false, exists: true });
});

Deno.test("stop signals the holder and waits until the lock is gone", async () => {
  const pidfile = join(tmp(), "poll.pid");
  const holder = await holdLock(pidfile);
  const result = await stopDaemon(pidfile, { timeoutMs: 20_000 });
  assert.deepEqual(result, { outcome: "stopped", pid: holder.pid });
  assert.equal((await holder.status).code, 0);
  assert.match(describeStop("poller", pidfile, result), /poller stopped/);
});

Deno.test("stop on a stale pidfile removes it and signals nobody", async () => {
  const pidfile = join(tmp(), "poll.pid");
  Deno.writeTextFileSync(pidfile, `${Deno.pid}\n`); // were it signalled, this test would die
  const result = await stopDaemon(pidfile, { timeoutMs: 1000 });
  assert.deepEqual(result, { outcome: "stale", pid: Deno.pid });
  assert.equal((await lockHolder(pidfile)).exists, false);
  assert.match(describeStop("poller", pidfile, result), /signalled nobody/);
});

Deno.test("stop without a pidfile says it is not running", async () => {
  const pidfile = join(tmp(), "poll.pid");
  assert.deepEqual(await stopDaemon(pidfile, { timeoutMs: 1000 }), { outcome: "not-running" });
});

Deno.test("stop reports a holder that outlives the timeout and leaves the pidfile", async () => {
  const pidfile = join(tmp(), "poll.pid");
  const holder = await holdLock(pidfile, { ignoreTerm: true });
  try {
    const result = await stopDaemon(pidfile, { timeoutMs: 300 });
    assert.deepEqual(result, { outcome: "timeout", pid: holder.pid });
    assert.equal((await lockHolder(pidfile)).live, true);
    assert.match(describeStop("poller", pidfile, result), /did not stop in time/);
  } finally {
    holder.kill("SIGKILL");
    await holder.status;
  }
});
