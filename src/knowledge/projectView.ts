// The knowledge store as a project that is not trusted sees it. The store holds every project's notes (and
// Claude Code's): a cloned repository's model must neither read the others' (a password noted in another
// project) nor leave a note another project's session would take for its own (an instruction it would follow).
// So every read is held to this clone's own notes and every write to its own name. That name is not the
// folder's name alone: a clone named like one of the user's projects ("webapp") would share that project's.
import path from 'node:path';
import { hashOf } from '../util/hashOf.js';
import { realOrAsGiven } from '../util/realPath.js';
import { KnowledgeError, type KnowledgeFilter, type KnowledgeStore } from './types.js';

/** The name an untrusted project's notes go under: its folder's name, marked, and a hash of where it is. */
export function untrustedProjectName(root: string): string {
  const real = realOrAsGiven(root);
  return `${path.basename(real)} (untrusted ${hashOf(real).slice(0, 10)})`;
}

/**
 * `project` is the name every read and write is held to; a note given the folder's plain name (what the
 * tools fill in when the model names no project) is stored under it.
 */
export function projectView(store: KnowledgeStore, root: string): KnowledgeStore {
  const project = untrustedProjectName(root);
  const plain = path.basename(realOrAsGiven(root));
  const own = (f?: KnowledgeFilter): KnowledgeFilter => ({ ...f, project });
  const mine = async (id: string) => {
    const d = await store.get(id);
    return d && d.metadata.project === project ? d : null;
  };
  return {
    backend: store.backend,
    location: store.location,
    add(docs, onProgress) {
      const other = docs.find((d) => d.metadata.project !== project && d.metadata.project !== plain);
      if (other)
        return Promise.reject(
          new KnowledgeError(
            `this project is not trusted, so its notes go under its own name ("${project}") only, not "${other.metadata.project}" (devx trust lifts this)`,
          ),
        );
      return store.add(
        docs.map((d) => ({ ...d, metadata: { ...d.metadata, project } })),
        onProgress,
      );
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
