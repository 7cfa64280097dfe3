import { toDot, toMermaid } from "../lang/graph.js";
import { EXIT_OK, type Io } from "./Io.js";
import { loadModelFile, printWarnings } from "./modelCheckCommand.js";

/** `contract-hub model graph <file>`: Graphviz DOT, then Mermaid, on stdout; warnings on stderr. */
export async function modelGraphCommand(file: string, io: Io): Promise<number> {
  const lts = await loadModelFile(file, io, "model graph");
  if (typeof lts === "number") return lts;
  io.out(`// Graphviz DOT\n${toDot(lts)}\n\n%% Mermaid\n${toMermaid(lts)}`);
  printWarnings(lts, io);
  return EXIT_OK;
}
