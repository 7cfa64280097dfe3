/** Resolves with the name of the first SIGINT or SIGTERM (how long-running commands learn to stop). */
export function untilSignal(): Promise<string> {
  return new Promise((resolve) => {
    const on = (name: NodeJS.Signals) => {
      process.off("SIGINT", on);
      process.off("SIGTERM", on);
      resolve(name);
    };
    process.on("SIGINT", on);
    process.on("SIGTERM", on);
  });
}
