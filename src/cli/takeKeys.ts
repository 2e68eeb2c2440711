// A full-screen view (the agent picker, the background commands) takes the keyboard from the REPL's readline
// while it is open: its keypress listeners are detached, the terminal is raw, and all of it is put back after.
import readline from 'node:readline';

/** Takes the keys of `input` for a view; the function it returns gives them back as they were. */
export function takeKeys(input: NodeJS.ReadStream): () => void {
  const saved = input.listeners('keypress') as ((...a: unknown[]) => void)[];
  input.removeAllListeners('keypress');
  readline.emitKeypressEvents(input);
  const wasRaw = input.isRaw;
  input.setRawMode(true);
  const wasPaused = input.isPaused();
  input.resume();
  return () => {
    input.setRawMode(wasRaw);
    if (wasPaused) input.pause();
    for (const l of saved) input.on('keypress', l);
  };
}
