/**
 * Runs `run` at most once an animation frame however often it is asked for: a push of 500
 * commits is 500 events, and redrawing the page for each (the diagram with it) kept the browser
 * busy long after the push, to show states nobody could see. Every request made before the frame
 * is answered by that frame's one call, which reads the newest state, so the page ends the same.
 *
 * A hidden page gets no animation frames until it is shown again; there the call waits for a
 * timer instead (which browsers slow down in hidden pages, coalescing as much), so the page is
 * current whenever it is next looked at, or read by a script.
 */
export interface FrameScheduler {
  /** Asks for a call; a no-op while one is pending. */
  request(): void;
  /** Drops a pending call and stops listening: the page is left. */
  cancel(): void;
}

export function oncePerFrame(run: () => void): FrameScheduler {
  let frame: number | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const hidden = () => document.visibilityState === "hidden" || typeof requestAnimationFrame !== "function";
  const clear = () => {
    if (frame !== undefined) cancelAnimationFrame(frame);
    clearTimeout(timer);
    frame = undefined;
    timer = undefined;
  };
  const fire = () => {
    clear();
    run();
  };
  const schedule = () => {
    if (hidden()) timer = setTimeout(fire, 0);
    else frame = requestAnimationFrame(fire);
  };
  // A frame asked for just before the page was hidden would not come until it is shown again.
  const onVisibility = () => {
    if (frame === undefined && timer === undefined) return;
    clear();
    schedule();
  };
  document.addEventListener("visibilitychange", onVisibility);
  return {
    request() {
      if (frame === undefined && timer === undefined) schedule();
    },
    cancel() {
      clear();
      document.removeEventListener("visibilitychange", onVisibility);
    },
  };
}
