/**
 * The OpenAPI document as outside tools see it: operation ids, servers and examples, the Redocly
 * linter (recommended rules), and a TypeScript client generated with openapi-typescript that
 * type-checks and runs against the served API.
 */
import assert from "node:assert/strict";
import { silentLogger } from "../../lib/logger.ts";
import { createApp } from "../../routes/app.ts";
import { makeTestDeps } from "../_helpers/test_deps.ts";

/** Pinned outside tools, run with npx so neither reaches deno.lock. */
const REDOCLY = "@redocly/cli@2.77.0";
const OPENAPI_TYPESCRIPT = "openapi-typescript@7.13.0";
const ORIGIN = "http://127.0.0.1:8000"; // where `deno task start` serves by default

type Operation = {
  operationId?: string;
  requestBody?: { content: Record<string, { example?: unknown; schema?: { example?: unknown } }> };
};

async function servedDocument(): Promise<Record<string, unknown>> {
  await using deps = await makeTestDeps();
  const app = createApp(deps, { logger: silentLogger });
  const res = await app.request(`${ORIGIN}/openapi.json`);
  assert.equal(res.status, 200);
  return await res.json();
}

function operations(doc: Record<string, unknown>): [string, Operation][] {
  return Object.entries(doc.paths as Record<string, Record<string, Operation>>).flatMap((
    [path, item],
  ) =>
    Object.entries(item).map((
      [method, op],
    ): [string, Operation] => [`${method.toUpperCase()} ${path}`, op])
  );
}

async function npx(args: string[], cwd: string): Promise<Deno.CommandOutput> {
  return await new Deno.Command("npx", {
    args: ["-y", ...args],
    cwd,
    env: { REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true", NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
}

const decode = (bytes: Uint8Array) => new TextDecoder().decode(bytes);

/** Whether `npx <tool> --version` runs here (npm registry or npm cache reachable). */
async function toolRuns(tool: string): Promise<boolean> {
  try {
    const out = await npx([tool, "--version"], Deno.cwd());
    if (out.success) return true;
    // deno-lint-ignore no-console
    console.warn(`${tool} cannot run here (${decode(out.stderr).trim().slice(-300)})`);
  } catch (err) {
    // deno-lint-ignore no-console
    console.warn(`npx is not available: ${err}`);
  }
  return false;
}

const [redoclyRuns, generatorRuns] = await Promise.all([
  toolRuns(REDOCLY),
  toolRuns(OPENAPI_TYPESCRIPT),
]);

Deno.test("GET /openapi.json names every operation with a unique camelCase operationId", async () => {
  const doc = await servedDocument();
  const ops = operations(doc);
  assert.ok(ops.length >= 31, `only ${ops.length} operations`);
  const missing = ops.filter(([, op]) => !op.operationId).map(([name]) => name);
  assert.deepEqual(missing, [], `operations without an operationId: ${missing.join(", ")}`);
  const ids = ops.map(([, op]) => op.operationId!);
  for (const id of ids) assert.match(id, /^[a-z][a-zA-Z0-9]*$/, `${id} is not camelCase`);
  assert.equal(new Set(ids).size, ids.length, "operationIds are unique");
});

Deno.test("GET /openapi.json has servers and an example for every JSON request body", async () => {
  const doc = await servedDocument();
  assert.deepEqual(doc.servers, [{ url: ORIGIN, description: "This server" }]);
  const bare = operations(doc)
    .filter(([, op]) => {
      const json = op.requestBody?.content["application/json"];
      return json && json.example === undefined && json.schema?.example === undefined;
    })
    .map(([name]) => name);
  assert.deepEqual(bare, [], `request bodies without an example: ${bare.join(", ")}`);
});

Deno.test("GET /openapi.json emits request bodies in input form: defaulted fields are optional", async () => {
  const doc = await servedDocument();
  const paths = doc.paths as Record<string, Record<string, Operation & Record<string, unknown>>>;
  const schemaOf = (path: string, method: string) =>
    // deno-lint-ignore no-explicit-any
    (paths[path][method].requestBody!.content["application/json"] as any).schema;
  const createWorld = schemaOf("/v1/worlds", "post");
  assert.equal(createWorld.$ref, undefined, "inlined, not shared with responses");
  assert.deepEqual(createWorld.required, ["name"]);
  assert.equal(createWorld.properties.minutesPerTick.default, 10);
  assert.equal(createWorld.properties.settings.required, undefined);
  const respond = schemaOf("/v1/worlds/{world}/agents/{agent}/respond", "post");
  assert.ok(!respond.required.includes("mode"));
});

Deno.test({
  name: `${REDOCLY} lint (recommended rules) reports no errors in /openapi.json`,
  ignore: !redoclyRuns,
  async fn() {
    const dir = await Deno.makeTempDir();
    try {
      await Deno.writeTextFile(`${dir}/openapi.json`, JSON.stringify(await servedDocument()));
      const out = await npx([REDOCLY, "lint", "--format=json", "openapi.json"], dir);
      const text = decode(out.stdout);
      const report = JSON.parse(text.slice(text.indexOf("{"))) as {
        totals: { errors: number; warnings: number };
        problems: { message: string; ruleId: string; severity: string }[];
      };
      const errors = report.problems.filter((p) => p.severity === "error");
      assert.deepEqual(
        errors.map((p) => `${p.ruleId}: ${p.message}`),
        [],
        "Redocly lint errors",
      );
      assert.equal(report.totals.errors, 0);
      assert.ok(out.success, decode(out.stderr));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});

/** A game client written against the generated types, as a user would write it. */
const CLIENT_PROGRAM = `
import type { operations } from "./api.d.ts";

type Body<Op extends keyof operations> = operations[Op] extends
  { requestBody?: { content: { "application/json": infer B } } } ? B : never;
type Ok<Op extends keyof operations, S extends keyof operations[Op]["responses"]> =
  operations[Op]["responses"][S] extends { content: { "application/json": infer R } } ? R : never;

async function call<R>(base: string, method: string, path: string, body: unknown): Promise<R> {
  const res = await fetch(base + path, {
    method,
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  if (!res.ok) throw new Error(method + " " + path + " -> " + res.status + " " + await res.text());
  return await res.json() as R;
}

export async function play(base: string): Promise<string> {
  const worldBody: Body<"createWorld"> = { name: "Harbour", startTime: "2023-02-13T07:00:00" };
  const world = await call<Ok<"createWorld", 201>>(base, "POST", "/v1/worlds", worldBody);
  const minutes: number = world.clock.minutesPerTick;

  const agentBody: Body<"createAgent"> = {
    name: "Mira Stone",
    description: "Mira keeps the lighthouse; Mira is kind to stray cats",
  };
  const agent = await call<Ok<"createAgent", 201>>(
    base, "POST", "/v1/worlds/" + world.id + "/agents", agentBody);

  const at = "/v1/worlds/" + world.id + "/agents/" + agent.id;
  const seen: Body<"perceive"> = { observations: [{ text: "A storm is coming in from the west" }] };
  await call<Ok<"perceive", 200>>(base, "POST", at + "/perceive", seen);

  const query: Body<"retrieveMemories"> = { query: "the weather" };
  const found = await call<Ok<"retrieveMemories", 200>>(base, "POST", at + "/retrieve", query);
  const first: string = found.memories[0].description;

  const message: Body<"respond"> = { message: "Is a storm coming?" };
  const reply = await call<Ok<"respond", 200>>(base, "POST", at + "/respond", message);
  return [minutes, first, reply.reply].join(" | ");
}
`;

Deno.test({
  name:
    `${OPENAPI_TYPESCRIPT} generates a client that type-checks and runs the minimal game sequence`,
  ignore: !generatorRuns,
  sanitizeResources: false,
  sanitizeOps: false,
  async fn() {
    const dir = await Deno.makeTempDir();
    await using deps = await makeTestDeps();
    const app = createApp(deps, { logger: silentLogger });
    await using server = Deno.serve({ port: 0, hostname: "127.0.0.1", onListen() {} }, app.fetch);
    try {
      const base = `http://127.0.0.1:${server.addr.port}`;
      const doc = await (await fetch(`${base}/openapi.json`)).text();
      await Deno.writeTextFile(`${dir}/openapi.json`, doc);
      const gen = await npx([OPENAPI_TYPESCRIPT, "openapi.json", "-o", "api.d.ts"], dir);
      assert.ok(gen.success, decode(gen.stderr));
      await Deno.writeTextFile(`${dir}/client.ts`, CLIENT_PROGRAM);
      const check = await new Deno.Command(Deno.execPath(), {
        args: ["check", "--no-config", "--no-lock", "client.ts"],
        cwd: dir,
        stdout: "piped",
        stderr: "piped",
      }).output();
      assert.ok(check.success, `deno check failed:\n${decode(check.stderr)}`);

      const { play } = await import(`file://${dir}/client.ts`);
      const line: string = await play(base);
      assert.match(line, /^10 \| .*storm.* \| Mira Stone: /);
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  },
});
