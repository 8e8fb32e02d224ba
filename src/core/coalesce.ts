/**
 * Runs `task` when asked, never twice at once: a request that arrives while
 * it runs makes it run once more afterwards (however many arrived). A task
 * that throws ends the round.
 */
export function coalesce(task: () => Promise<void>): () => void {
  let running = false;
  let again = false;
  const run = async (): Promise<void> => {
    running = true;
    try {
      do {
        again = false;
        await task();
      } while (again);
    } finally {
      running = false;
    }
  };
  return () => {
    if (running) {
      again = true;
      return;
    }
    run().catch(() => undefined);
  };
}
