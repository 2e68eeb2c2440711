// Waiting that a cancel ends: what a turn waits on before its model call (MCP servers starting) must not
// hold a Ctrl-C back until it is done.

/** Resolves when `signal` aborts (at once if it has); never, without one. */
export function whenAborted(signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) resolve();
    else signal?.addEventListener('abort', () => resolve(), { once: true });
  });
}
