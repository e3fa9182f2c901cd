/** @module A Deno KV whose atomic commits are counted, for tests of how stores batch their writes. */

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
