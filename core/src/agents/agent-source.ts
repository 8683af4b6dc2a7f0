/**
 * An extension package as authored: its manifest and its flow definition, both still unparsed
 * JSON so review can report every problem with its path instead of failing on the first.
 */
export interface AgentSource {
  manifest: unknown;
  flow: unknown;
}
