/**
 * A JSON-RPC result already serialized (in pieces, see HubApi.getLogText): the dispatcher
 * puts `text` in the envelope as it is instead of serializing the result again in one go.
 */
export class JsonText {
  constructor(readonly text: string) {}

  /** The text of `pieces`, joined as they come (each piece was built in its own slice). */
  static async from(pieces: AsyncIterable<string>): Promise<JsonText> {
    let text = "";
    for await (const piece of pieces) text += piece;
    return new JsonText(text);
  }
}
