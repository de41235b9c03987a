/** What `keyBy(...).window(assigner)...` recorded: filled in with the window operator. */
export interface WindowDefinition {
  describe(): string;
}
