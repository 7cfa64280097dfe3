/**
 * Long front-end work (parsing and compiling a model of 10^5 transitions takes most of a
 * second) written once as a generator that pauses between pieces: run to the end at once
 * (`runSteps`, what the command line and the worker do), or with a `tick` between pieces
 * that lets a server's event loop serve others (`runStepsAsync`).
 */

/** Work that pauses (yields nothing) between pieces and returns a `T`. */
export type Steps<T> = Generator<void, T, void>;

/** How many transitions or states a piece covers between pauses (a few milliseconds of work). */
export const STEP_SIZE = 512;

/** Runs `steps` to the end without pausing. */
export function runSteps<T>(steps: Steps<T>): T {
  let r = steps.next();
  while (!r.done) r = steps.next();
  return r.value;
}

/** Runs `steps` to the end, awaiting `tick` at every pause (its rejection ends the work). */
export async function runStepsAsync<T>(steps: Steps<T>, tick: () => Promise<void> | void): Promise<T> {
  let r = steps.next();
  while (!r.done) {
    try {
      await tick();
    } catch (err) {
      steps.return(undefined as never);
      throw err;
    }
    r = steps.next();
  }
  return r.value;
}
