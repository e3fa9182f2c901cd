/** @module A Deno KV whose commits or calls are counted, for tests of how stores batch their reads and writes. */

/** `kv` with every atomic operation's commit counted (`commits()`). */
export function countingCommits(kv: Deno.Kv): { kv: Deno.Kv; commits: () => number } {
  let commits = 0;
  const counted = new Proxy(kv, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (name !== "atomic") return typeof value === "function" ? value.bind(target) : value;
      return () => {
        const op = target.atomic();
        const commit = op.commit.bind(op);
        op.commit = () => (commits++, commit());
        return op;
      };
    },
  });
  return { kv: counted, commits: () => commits };
}

/** `kv` with its calls of the methods `names` counted (`calls()`), e.g. its reads. */
export function countingCalls(
  kv: Deno.Kv,
  names: readonly (keyof Deno.Kv)[],
): { kv: Deno.Kv; calls: () => number } {
  let calls = 0;
  const counted = new Proxy(kv, {
    get(target, name) {
      const value = Reflect.get(target, name, target);
      if (typeof value !== "function") return value;
      if (!names.includes(name as keyof Deno.Kv)) return value.bind(target);
      return (...args: unknown[]) => (calls++, value.apply(target, args));
    },
  });
  return { kv: counted, calls: () => calls };
}
