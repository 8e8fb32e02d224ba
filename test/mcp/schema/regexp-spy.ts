/**
 * A test helper: which regular expressions JavaScript's backtracking engine
 * ran while some code ran, to show that a server's pattern never does.
 */

/**
 * The sources of the `RegExp`s run (`exec`, and `test`, `match`, … which
 * go through it) while `run` runs, until it settles.
 */
export async function regExpsRunDuring(run: () => unknown): Promise<string[]> {
  const sources: string[] = [];
  const { exec } = RegExp.prototype;
  RegExp.prototype.exec = function (this: RegExp, text: string) {
    sources.push(this.source);
    return exec.call(this, text);
  };
  try {
    await run();
  } finally {
    RegExp.prototype.exec = exec;
  }
  return sources;
}
