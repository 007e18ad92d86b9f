/**
 * The failure policy keys of a hook entry (`onError`, `suspendMode`, `retryBackoffMs`,
 * `suspendTimeoutMinutes`, and `required` as `onError: block`): each accepted form, and each
 * located problem.
 *
 * @module
 */
import assert from "node:assert/strict";
import { isNode, LineCounter, parseDocument } from "yaml";
import { ProblemsError } from "../../errors.ts";
import { type Declaration, describeDeclaration, parseDeclaration } from "./mod.ts";

/** Parses `yaml`'s `hooks:` with a real `locate` (lines and columns as the loader gives them). */
function parse(yaml: string): Declaration {
  const lc = new LineCounter();
  const doc = parseDocument(yaml, { lineCounter: lc });
  const locate = (keyPath: (string | number)[]) => {
    const node = doc.getIn(keyPath, true);
    if (!isNode(node) || !node.range) return undefined;
    return lc.linePos(node.range[0]);
  };
  return parseDeclaration(doc.toJS().hooks, {
    file: "/cfg/cli-config.yaml",
    baseDir: "/cfg",
    locate,
  });
}

function problems(yaml: string): string[] {
  try {
    parse(yaml);
  } catch (e) {
    assert.ok(e instanceof ProblemsError, String(e));
    return e.problems.map((p) => `${p.line}:${p.col} ${p.path}: ${p.message}`);
  }
  assert.fail("expected a ProblemsError");
}

/** One command hook `a` with `lines` (each `key: value`) added. */
function hook(...lines: string[]): string {
  return `hooks:\n  - name: a\n    command: [x]\n${lines.map((l) => `    ${l}\n`).join("")}`;
}

function policy(yaml: string) {
  const [e] = parse(yaml).entries;
  return {
    onError: e.onError,
    required: e.required,
    ...(e.suspendMode !== undefined ? { suspendMode: e.suspendMode } : {}),
    ...(e.retryBackoffMs !== undefined ? { retryBackoffMs: e.retryBackoffMs } : {}),
    ...(e.suspendTimeoutMinutes !== undefined
      ? { suspendTimeoutMinutes: e.suspendTimeoutMinutes }
      : {}),
  };
}

Deno.test("policy: warn by default; required true is block, required false is warn", () => {
  assert.deepEqual(policy(hook()), { onError: "warn", required: false });
  assert.deepEqual(policy(hook("required: true")), { onError: "block", required: true });
  assert.deepEqual(policy(hook("required: false")), { onError: "warn", required: false });
});

Deno.test("policy: onError warn and block; block is required", () => {
  assert.deepEqual(policy(hook("onError: warn")), { onError: "warn", required: false });
  assert.deepEqual(policy(hook("onError: block")), { onError: "block", required: true });
});

Deno.test("policy: suspend defaults to wait_for_resume; retry_backoff to 100, 200, 400 ms", () => {
  assert.deepEqual(policy(hook("onError: suspend")), {
    onError: "suspend",
    required: false,
    suspendMode: "wait_for_resume",
  });
  assert.deepEqual(policy(hook("onError: suspend", "suspendMode: wait_then_retry")), {
    onError: "suspend",
    required: false,
    suspendMode: "wait_then_retry",
  });
  assert.deepEqual(policy(hook("onError: suspend", "suspendMode: retry_backoff")), {
    onError: "suspend",
    required: false,
    suspendMode: "retry_backoff",
    retryBackoffMs: [100, 200, 400],
  });
});

Deno.test("policy: retryBackoffMs and suspendTimeoutMinutes as given", () => {
  const yaml = hook(
    "onError: suspend",
    "suspendMode: retry_backoff",
    "retryBackoffMs: [0, 60000]",
    "suspendTimeoutMinutes: 1.5",
  );
  assert.deepEqual(policy(yaml), {
    onError: "suspend",
    required: false,
    suspendMode: "retry_backoff",
    retryBackoffMs: [0, 60000],
    suspendTimeoutMinutes: 1.5,
  });
  assert.deepEqual(
    policy(hook("onError: suspend", "suspendTimeoutMinutes: 30")).suspendTimeoutMinutes,
    30,
  );
});

Deno.test("policy: required beside onError is refused at the onError key, suggesting one", () => {
  for (const required of ["true", "false"]) {
    const got = problems(hook(`required: ${required}`, "onError: suspend"));
    assert.equal(got.length, 1, got.join("\n"));
    assert.match(
      got[0],
      /^5:14 hooks\[0\]\.onError: hook "a": "required" and "onError" say the same thing; keep one \(required: true is onError: block; /,
    );
  }
});

Deno.test("policy: an unknown onError or suspendMode names the values and the nearest one", () => {
  assert.deepEqual(problems(hook("onError: blok")), [
    '4:14 hooks[0].onError: hook "a": must be one of warn, block, suspend (got "blok"; did you mean "block"?)',
  ]);
  assert.deepEqual(problems(hook("onError: suspend", "suspendMode: retry_backof")), [
    '5:18 hooks[0].suspendMode: hook "a": must be one of wait_for_resume, retry_backoff, ' +
    'wait_then_retry (got "retry_backof"; did you mean "retry_backoff"?)',
  ]);
  assert.deepEqual(problems(hook("onError: 3")), [
    '4:14 hooks[0].onError: hook "a": must be one of warn, block, suspend (got 3)',
  ]);
});

Deno.test("policy: a key without the mode that uses it says which key needs what", () => {
  assert.deepEqual(problems(hook("suspendMode: wait_then_retry")), [
    '4:18 hooks[0].suspendMode: hook "a": "suspendMode" applies only with onError: suspend ' +
    "(this hook has warn); remove it or set onError: suspend",
  ]);
  assert.deepEqual(problems(hook("required: true", "suspendMode: retry_backoff")), [
    '5:18 hooks[0].suspendMode: hook "a": "suspendMode" applies only with onError: suspend ' +
    "(this hook has block); remove it or set onError: suspend",
  ]);
  assert.deepEqual(problems(hook("onError: suspend", "retryBackoffMs: [5]")), [
    '5:21 hooks[0].retryBackoffMs: hook "a": "retryBackoffMs" applies only with suspendMode: ' +
    "retry_backoff (this hook has suspendMode: wait_for_resume); remove it or set suspendMode: " +
    "retry_backoff",
  ]);
  assert.deepEqual(problems(hook("onError: block", "retryBackoffMs: [5]")), [
    '5:21 hooks[0].retryBackoffMs: hook "a": "retryBackoffMs" applies only with suspendMode: ' +
    "retry_backoff (this hook has onError: block); remove it or set suspendMode: retry_backoff",
  ]);
  assert.deepEqual(problems(hook("suspendTimeoutMinutes: 5")), [
    '4:28 hooks[0].suspendTimeoutMinutes: hook "a": "suspendTimeoutMinutes" applies only with ' +
    "onError: suspend (this hook has warn); remove it or set onError: suspend",
  ]);
});

Deno.test("policy: retryBackoffMs is 1 to 10 whole waits from 0 to 60000 ms, each located", () => {
  const base = ["onError: suspend", "suspendMode: retry_backoff"];
  assert.deepEqual(problems(hook(...base, "retryBackoffMs: [100, -1, 1.5, 60001]")), [
    '6:27 hooks[0].retryBackoffMs[1]: hook "a": must be a whole number of milliseconds from 0 to 60000 (got -1)',
    '6:31 hooks[0].retryBackoffMs[2]: hook "a": must be a whole number of milliseconds from 0 to 60000 (got 1.5)',
    '6:36 hooks[0].retryBackoffMs[3]: hook "a": must be a whole number of milliseconds from 0 to 60000 (got 60001)',
  ]);
  for (const v of ["[]", "100", `[${Array(11).fill(1).join(", ")}]`]) {
    const got = problems(hook(...base, `retryBackoffMs: ${v}`));
    assert.equal(got.length, 1, got.join("\n"));
    assert.match(
      got[0],
      /^6:21 hooks\[0\]\.retryBackoffMs: hook "a": must be a list of 1 to 10 waits in milliseconds, each a whole number from 0 to 60000 \(got /,
    );
  }
});

Deno.test("policy: suspendTimeoutMinutes must be a number > 0", () => {
  for (const v of ["0", "-3", "soon"]) {
    const got = problems(hook("onError: suspend", `suspendTimeoutMinutes: ${v}`));
    assert.equal(got.length, 1, got.join("\n"));
    assert.match(
      got[0],
      /^5:28 hooks\[0\]\.suspendTimeoutMinutes: hook "a": must be a number > 0 \(minutes\)/,
    );
  }
});

Deno.test("describeDeclaration lists the policy, and required beside it", () => {
  const yaml = "hooks:\n" +
    "  - name: a\n    command: [x]\n" +
    "  - name: b\n    command: [x]\n    required: true\n" +
    "  - name: c\n    command: [x]\n    onError: suspend\n    suspendMode: retry_backoff\n" +
    "    retryBackoffMs: [1, 2]\n    suspendTimeoutMinutes: 10\n";
  const [a, b, c] = describeDeclaration(parse(yaml));
  assert.deepEqual([a.onError, a.required, "suspendMode" in a, "retryBackoffMs" in a], [
    "warn",
    false,
    false,
    false,
  ]);
  assert.deepEqual([b.onError, b.required], ["block", true]);
  assert.deepEqual(
    [c.onError, c.required, c.suspendMode, c.retryBackoffMs, c.suspendTimeoutMinutes],
    ["suspend", false, "retry_backoff", [1, 2], 10],
  );
});
