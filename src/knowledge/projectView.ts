// The knowledge store as a project that is not trusted sees it. The store holds every project's notes (and
// Claude Code's): a cloned repository's model must neither read the others' (a password noted in another
// project) nor leave a note under another project's name (an instruction that project's next session would
// follow). So every read is held to this project's own notes and every write to its own name.
import { KnowledgeError, type KnowledgeFilter, type KnowledgeStore } from './types.js';

export function projectView(store: KnowledgeStore, project: string): KnowledgeStore {
  const own = (f?: KnowledgeFilter): KnowledgeFilter => ({ ...f, project });
  const mine = async (id: string) => {
    const d = await store.get(id);
    return d && d.metadata.project === project ? d : null;
  };
  return {
    backend: store.backend,
    location: store.location,
    add(docs, onProgress) {
      const other = docs.find((d) => d.metadata.project !== project);
      if (other)
        return Promise.reject(
          new KnowledgeError(
            `this project is not trusted, so its notes go under its own name ("${project}") only, not "${other.metadata.project}" (devx trust lifts this)`,
          ),
        );
      return store.add(docs, onProgress);
    },
    search: (query, opts) => store.search(query, { ...opts, filter: own(opts.filter) }),
    list: (opts) => store.list({ ...opts, filter: own(opts.filter) }),
    get: mine,
    async delete(ids) {
      const owned = [];
      for (const id of ids) if (await mine(id)) owned.push(id);
      return store.delete(owned);
    },
    async count() {
      return (await store.list({ filter: own(), limit: 1_000_000 })).length;
    },
  };
}
